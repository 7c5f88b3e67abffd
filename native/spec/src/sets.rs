//! Cutting a group's sets from its shared arrays (`model.sets_of_grouped_rows`).

use pyo3::buffer::{PyBuffer, ReadOnlyCell};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple, PyType};

use model::slots::{bytes, set_slot, slot_offsets};

/// The slots `cut_sets` sets, in its order; the others read as "not made yet" (`PartitionSet.__getattr__`).
const CUT_SLOTS: [&str; 5] = ["table", "is_sorted", "_src", "_at", "count"];

/// One `cls` object per member position of a group whose rows are grouped by member: member i's rows are
/// `rows_at[i]:rows_at[i + 1]`. A member with rows gets a new object with the five `CUT_SLOTS` set (`table`,
/// `is_sorted` from `ordered`, or True without it, `shared`, its position i and its row count); one with none
/// gets `empty` itself (`model.sets_of_grouped_rows`).
#[pyfunction]
#[pyo3(signature = (cls, table, shared, rows_at, ordered, empty))]
pub fn cut_sets<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    table: &Bound<'py, PyAny>,
    shared: &Bound<'py, PyAny>,
    rows_at: PyBuffer<i64>,
    ordered: Option<Vec<bool>>,
    empty: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let offsets = slot_offsets(cls, CUT_SLOTS)?;
    let starts = rows_at
        .as_slice(py)
        .ok_or_else(|| PyValueError::new_err("rows_at must be a contiguous int64 array"))?;
    let members = starts.len().saturating_sub(1);
    if ordered.as_ref().is_some_and(|o| o.len() != members) {
        return Err(PyValueError::new_err("ordered must have one flag per member"));
    }
    unsafe { make_sets(py, cls, table, shared, starts, ordered.as_deref(), empty, &offsets) }
}

/// `cut_sets`'s loop.
#[allow(clippy::too_many_arguments)]
unsafe fn make_sets<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    table: &Bound<'py, PyAny>,
    shared: &Bound<'py, PyAny>,
    starts: &[ReadOnlyCell<i64>],
    ordered: Option<&[bool]>,
    empty: &Bound<'py, PyAny>,
    offsets: &[ffi::Py_ssize_t; 5],
) -> PyResult<Bound<'py, PyList>> {
    let members = starts.len().saturating_sub(1);
    let alloc = (*cls.as_type_ptr())
        .tp_alloc
        .ok_or_else(|| PyTypeError::new_err("the class given cannot allocate instances"))?;
    let list = ffi::PyList_New(members as ffi::Py_ssize_t);
    // Owned from here: an early return drops the list, and with it the sets made so far.
    let out = Bound::from_owned_ptr_or_err(py, list)?.downcast_into_unchecked::<PyList>();
    for i in 0..members {
        let count = starts[i + 1].get() - starts[i].get();
        if count < 0 {
            return Err(PyValueError::new_err("rows_at must ascend"));
        }
        let item = if count == 0 {
            ffi::Py_INCREF(empty.as_ptr());
            empty.as_ptr()
        } else {
            let obj = alloc(cls.as_type_ptr(), 0);
            if obj.is_null() {
                return Err(PyErr::fetch(py));
            }
            let at = ffi::PyLong_FromSsize_t(i as ffi::Py_ssize_t);
            let n = ffi::PyLong_FromLongLong(count);
            if at.is_null() || n.is_null() {
                ffi::Py_XDECREF(at);
                ffi::Py_XDECREF(n);
                ffi::Py_DECREF(obj);
                return Err(PyErr::fetch(py));
            }
            let sorted = if ordered.is_none_or(|o| o[i]) {
                ffi::Py_True()
            } else {
                ffi::Py_False()
            };
            for value in [table.as_ptr(), sorted, shared.as_ptr()] {
                ffi::Py_INCREF(value);
            }
            let values = [table.as_ptr(), sorted, shared.as_ptr(), at, n];
            for (offset, value) in offsets.iter().zip(values) {
                set_slot(obj, *offset, value);
            }
            // Nothing a set holds can refer back to it (a table, ints, a tuple of int arrays): it can never be part
            // of a cycle, and untracked, the collector never visits the thousands a group makes.
            ffi::PyObject_GC_UnTrack(obj as *mut std::ffi::c_void);
            obj
        };
        ffi::PyList_SET_ITEM(list, i as ffi::Py_ssize_t, item);
    }
    Ok(out)
}

/// The shared arrays of a group's sets, from its rows grouped by (member position, topic code), codes ascending
/// within a member: each topic run's code, every member's bounds relative to its first row laid out back to back
/// (its runs' starts, then its row count), and where each member's rows and runs start (`rows_at`, `runs_at`,
/// members + 1 entries each); with `as_listed`, per member whether its indices ascend within every run. Rows of a
/// member position outside [0, members) belong to no member. (In numpy: a dozen array calls.)
#[pyfunction]
#[pyo3(signature = (member_row, topic_row, index_row, members, as_listed))]
#[allow(clippy::type_complexity)]
pub fn group_runs<'py>(
    py: Python<'py>,
    member_row: PyBuffer<i64>,
    topic_row: PyBuffer<i64>,
    index_row: PyBuffer<i32>,
    members: usize,
    as_listed: bool,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Option<Vec<bool>>,
)> {
    let contiguous = || PyValueError::new_err("the rows must be contiguous arrays");
    let member = member_row.as_slice(py).ok_or_else(contiguous)?;
    let topic = topic_row.as_slice(py).ok_or_else(contiguous)?;
    let index = index_row.as_slice(py).ok_or_else(contiguous)?;
    if topic.len() != member.len() || index.len() != member.len() {
        return Err(PyValueError::new_err("the rows must be parallel"));
    }
    if member.windows(2).any(|w| w[1].get() < w[0].get()) {
        return Err(PyValueError::new_err(
            "the rows must be grouped by member, in ascending order",
        ));
    }
    let heads: Vec<usize> = (0..member.len())
        .filter(|&k| k == 0 || member[k].get() != member[k - 1].get() || topic[k].get() != topic[k - 1].get())
        .collect();
    let run_member: Vec<i64> = heads.iter().map(|&h| member[h].get()).collect();
    let codes: Vec<i64> = heads.iter().map(|&h| topic[h].get()).collect();
    let starts = |of: &dyn Fn(usize) -> i64, len: usize| -> Vec<i64> {
        // where member j's entries start, for j in 0..=members: the first entry of a member position >= j
        let mut at = vec![0i64; members + 1];
        let mut k = 0usize;
        for (j, slot) in at.iter_mut().enumerate() {
            while k < len && of(k) < j as i64 {
                k += 1;
            }
            *slot = k as i64;
        }
        at
    };
    let rows_at = starts(&|k| member[k].get(), member.len());
    let runs_at = starts(&|k| run_member[k], run_member.len());
    let mut rel = vec![0i64; heads.len() + members];
    for (h, (&head, &m)) in heads.iter().zip(&run_member).enumerate() {
        if (0..members as i64).contains(&m) {
            rel[h + m as usize] = head as i64 - rows_at[m as usize];
        }
    }
    for i in 0..members {
        rel[runs_at[i + 1] as usize + i] = rows_at[i + 1] - rows_at[i];
    }
    let ordered = as_listed.then(|| {
        let mut ordered = vec![true; members];
        for k in 1..member.len() {
            let m = member[k].get();
            let same_run = m == member[k - 1].get() && topic[k].get() == topic[k - 1].get();
            if same_run && index[k].get() < index[k - 1].get() && (0..members as i64).contains(&m) {
                ordered[m as usize] = false;
            }
        }
        ordered
    });
    Ok((
        bytes(py, &codes),
        bytes(py, &rel),
        bytes(py, &rows_at),
        bytes(py, &runs_at),
        ordered,
    ))
}

/// {ids[i]: sets[i]}, as `dict(zip(ids, sets))` (a later repeat of an id wins), the dict sized once for all of
/// them instead of growing eight times on the way to a few thousand.
#[pyfunction]
pub fn by_member<'py>(ids: &Bound<'py, PyAny>, sets: &Bound<'py, PyList>) -> PyResult<Bound<'py, PyDict>> {
    let ids = ids
        .downcast::<PyTuple>()
        .map(|t| t.as_sequence().clone())
        .or_else(|_| {
            ids.downcast::<PyList>()
                .map(|l| l.as_sequence().clone())
                .map_err(|_| PyTypeError::new_err("ids must be a list or tuple"))
        })?;
    let py = sets.py();
    let n = ids.len()?.min(sets.len());
    let out = unsafe { Bound::from_owned_ptr_or_err(py, ffi::_PyDict_NewPresized(n as ffi::Py_ssize_t))? }
        .downcast_into::<PyDict>()?;
    for (i, set) in sets.iter().take(n).enumerate() {
        out.set_item(ids.get_item(i)?, set)?;
    }
    Ok(out)
}
