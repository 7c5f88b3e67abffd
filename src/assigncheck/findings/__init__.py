"""A finding from birth to verdict: what it is and the bugs findings make (`finding`), what tells two findings
apart (`signature`), the shrinker (`minimize`), the one path every finding takes to disk (`reproducers`), the
stages' raw failures filed and confirmed (`confirm`), the replay of a reproducer by its finding's kind
(`replay`), and H8 across processes (`processes`)."""
