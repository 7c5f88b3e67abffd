//! Reading and writing the slots of the model's `__slots__` classes directly, at the offsets their member
//! descriptors give: no attribute lookup per object, which is what a loop over thousands of members pays for;
//! and integers handed back as bytes.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};

/// Where instances of `cls` keep the object slot `name` (its member descriptor's offset).
pub fn slot_offset(cls: &Bound<'_, PyType>, name: &str) -> PyResult<ffi::Py_ssize_t> {
    let descr = cls.getattr(name)?;
    let slot_kind = cls.py().import_bound("types")?.getattr("MemberDescriptorType")?;
    if !descr.is_instance(&slot_kind)? {
        return Err(PyTypeError::new_err(format!("{name} is not a slot of the class given")));
    }
    // SAFETY: a member_descriptor is a PyMemberDescrObject; its d_member points to the type's PyMemberDef
    // (pyo3-ffi declares the field with the wrong pointee type).
    let def = unsafe { &*((*(descr.as_ptr() as *mut ffi::PyMemberDescrObject)).d_member as *const ffi::PyMemberDef) };
    let basic = unsafe { (*cls.as_type_ptr()).tp_basicsize };
    let word = std::mem::size_of::<*mut ffi::PyObject>() as ffi::Py_ssize_t;
    if def.type_code != ffi::Py_T_OBJECT_EX || def.offset < word || def.offset + word > basic {
        return Err(PyTypeError::new_err(format!(
            "{name} is not an object slot of the class given"
        )));
    }
    Ok(def.offset)
}

/// Puts a new reference in an instance's slot, which `tp_alloc` left empty.
///
/// # Safety
/// `obj` is a live instance of a class whose object slot is at `offset` (`slot_offset`), that slot is empty, and
/// `value` is a reference the caller owns and hands over.
pub unsafe fn set_slot(obj: *mut ffi::PyObject, offset: ffi::Py_ssize_t, value: *mut ffi::PyObject) {
    *((obj as *mut u8).offset(offset) as *mut *mut ffi::PyObject) = value;
}

/// The object in an instance's slot (borrowed); null when the slot was never set or holds None, which the model's
/// classes both read as "not made".
///
/// # Safety
/// `obj` is a live instance of a class whose object slot is at `offset` (`slot_offset`); the object returned is
/// borrowed from it, valid while `obj` holds it.
pub unsafe fn get_slot(obj: *mut ffi::PyObject, offset: ffi::Py_ssize_t) -> *mut ffi::PyObject {
    let value = *((obj as *const u8).offset(offset) as *const *mut ffi::PyObject);
    if value == ffi::Py_None() {
        std::ptr::null_mut()
    } else {
        value
    }
}

/// The offsets of `names` in instances of `cls`.
pub fn slot_offsets<const N: usize>(cls: &Bound<'_, PyType>, names: [&str; N]) -> PyResult<[ffi::Py_ssize_t; N]> {
    let mut offsets = [0; N];
    for (offset, name) in offsets.iter_mut().zip(names) {
        *offset = slot_offset(cls, name)?;
    }
    Ok(offsets)
}

/// Plain integers as their native bytes, for `numpy.frombuffer` (no array type is needed on this side).
pub fn bytes<'py, T: Copy>(py: Python<'py>, values: &[T]) -> Bound<'py, PyBytes> {
    // SAFETY: plain integers, read as their native bytes.
    let raw = unsafe { std::slice::from_raw_parts(values.as_ptr() as *const u8, std::mem::size_of_val(values)) };
    PyBytes::new_bound(py, raw)
}
