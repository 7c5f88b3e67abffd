//! The checker's compiled helpers (`assigncheck.spec.native`): the per-member loops that cost more in Python than
//! the rest of a check at thousands of members. They read and make the model's own Python objects.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into itself.
#![allow(clippy::useless_conversion)]

use pyo3::prelude::*;

mod claims;
mod members;
mod sets;

#[pymodule]
#[pyo3(name = "native")]
fn spec_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sets::cut_sets, m)?)?;
    m.add_function(wrap_pyfunction!(sets::group_runs, m)?)?;
    m.add_function(wrap_pyfunction!(sets::by_member, m)?)?;
    m.add_function(wrap_pyfunction!(claims::valid_claim_rows, m)?)?;
    m.add_function(wrap_pyfunction!(claims::raw_claimants, m)?)?;
    m.add_function(wrap_pyfunction!(members::same_subscriptions, m)?)?;
    m.add_function(wrap_pyfunction!(members::subscription_rows, m)?)
}
