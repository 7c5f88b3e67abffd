//! The built-in assignors' compiled kernels (`assigncheck.impl.native`): the loops over a whole group that cost more
//! in Python than the rest of an assign at thousands of members. They read the model's own Python objects.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into itself.
#![allow(clippy::useless_conversion)]

use pyo3::prelude::*;

mod constrained;
mod cooperative;
mod members;

#[pymodule]
#[pyo3(name = "native")]
fn impl_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(members::by_id, m)?)?;
    m.add_function(wrap_pyfunction!(constrained::place_two_phase, m)?)?;
    m.add_function(wrap_pyfunction!(cooperative::withheld, m)?)
}
