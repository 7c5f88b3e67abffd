"""Problem generators: one family of choices (`build`) behind hypothesis strategies (`strategies`) and seeded
plain-random problems (`seeded`), scenarios of group changes (`scenario`), and the scale stage's ladder of
production-size problems (`ladder`)."""
