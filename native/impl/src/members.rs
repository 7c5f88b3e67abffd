//! The members' ids in the order Python's `sorted` gives them: the built-in assignors' member order.

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple, PyType};

use model::slots::{bytes, get_slot, slot_offsets};

/// The members' ids (borrowed: each member holds its own), checked to be str.
pub fn member_ids(members: &Bound<'_, PyTuple>, member_cls: &Bound<'_, PyType>) -> PyResult<Vec<*mut ffi::PyObject>> {
    let [m_id] = slot_offsets(member_cls, ["member_id"])?;
    members
        .as_slice()
        .iter()
        .map(|member| {
            let member = member.as_ptr();
            if unsafe { ffi::PyObject_TypeCheck(member, member_cls.as_type_ptr()) } == 0 {
                return Err(PyTypeError::new_err("members must be Member objects"));
            }
            let id = unsafe { get_slot(member, m_id) };
            if id.is_null() || unsafe { ffi::PyUnicode_Check(id) } == 0 {
                return Err(PyTypeError::new_err("a member's id must be a str"));
            }
            Ok(id)
        })
        .collect()
}

/// A str's sort key: Python orders str by code point, which is the order of their UTF-8 bytes, lone surrogates
/// (which a JSON escape can make) encoded as UTF-8 encodes any other code point; borrowed from the str's cached
/// UTF-8 form when it has one.
fn utf8<'a>(py: Python<'_>, id: *mut ffi::PyObject) -> PyResult<Cow<'a, [u8]>> {
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `id` is a str its member holds for the whole call, and so is its cached UTF-8 form.
    let data = unsafe { ffi::PyUnicode_AsUTF8AndSize(id, &mut size) };
    if !data.is_null() {
        return Ok(Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(data as *const u8, size as usize)
        }));
    }
    unsafe { ffi::PyErr_Clear() };
    let id = unsafe { Bound::from_borrowed_ptr(py, id) };
    let encoded = id.call_method1("encode", ("utf-8", "surrogatepass"))?;
    Ok(Cow::Owned(encoded.downcast::<PyBytes>()?.as_bytes().to_vec()))
}

/// The member positions in member id order: Python's `sorted` over the ids (stable: equal ids keep their order).
/// The first eight bytes of each id, as one integer, decide most comparisons.
pub fn sorted_by_id(py: Python<'_>, ids: &[*mut ffi::PyObject]) -> PyResult<Vec<usize>> {
    let keys = ids.iter().map(|&id| utf8(py, id)).collect::<PyResult<Vec<_>>>()?;
    let prefix: Vec<u64> = keys
        .iter()
        .map(|key| {
            let mut head = [0u8; 8];
            let len = key.len().min(8);
            head[..len].copy_from_slice(&key[..len]);
            u64::from_be_bytes(head)
        })
        .collect();
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        prefix[a]
            .cmp(&prefix[b])
            .then_with(|| keys[a].cmp(&keys[b]))
            .then(a.cmp(&b))
    });
    Ok(order)
}

/// The members' ids sorted as Python's `sorted` sorts them, and each one's position among `members` (native
/// int64 bytes): the general sticky assignor's member order.
#[pyfunction]
pub fn by_id<'py>(
    members: &Bound<'py, PyTuple>,
    member_cls: &Bound<'py, PyType>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyBytes>)> {
    let py = members.py();
    let ids = member_ids(members, member_cls)?;
    let order = sorted_by_id(py, &ids)?;
    // SAFETY: each id is a str its member holds for the whole call; the list takes its own reference.
    let sorted = PyList::new_bound(
        py,
        order.iter().map(|&k| unsafe { Bound::from_borrowed_ptr(py, ids[k]) }),
    );
    let order: Vec<i64> = order.iter().map(|&k| k as i64).collect();
    Ok((sorted, bytes(py, &order)))
}
