//! Reading what a whole group's members hold: their ids in order, and their subscriptions.

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple, PyType};

use crate::slots::{bytes, get_slot, slot_offsets};

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

/// Whether every member has the same subscription (`Problem.subscriptions_equal`): one pointer comparison per
/// member when they share one set, as the JSON reader makes them, else set equality.
#[pyfunction]
pub fn same_subscriptions(members: &Bound<'_, PyTuple>, member_cls: &Bound<'_, PyType>) -> PyResult<bool> {
    let [m_subscription] = slot_offsets(member_cls, ["subscription"])?;
    let mut first: *mut ffi::PyObject = std::ptr::null_mut();
    for member in members.as_slice() {
        let member = member.as_ptr();
        if unsafe { ffi::PyObject_TypeCheck(member, member_cls.as_type_ptr()) } == 0 {
            return Err(PyTypeError::new_err("members must be Member objects"));
        }
        let subscription = unsafe { get_slot(member, m_subscription) };
        if subscription.is_null() {
            return Err(PyTypeError::new_err("a member's subscription must be a frozenset"));
        }
        if first.is_null() {
            first = subscription;
        } else if subscription != first {
            match unsafe { ffi::PyObject_RichCompareBool(subscription, first, ffi::Py_EQ) } {
                1 => {}
                0 => return Ok(false),
                _ => return Err(PyErr::fetch(members.py())),
            }
        }
    }
    Ok(true)
}

/// Each key of a dict of str -> int, by the key object's address: a set entry that is one of the dict's own key
/// objects (the JSON reader makes subscriptions' names the metadata's own strings) is found without hashing or
/// comparing strings. Open addressing, a power of two of slots at least twice the keys; address 0 marks a free slot.
struct ByAddress {
    slots: Vec<(usize, i64)>,
    shift: u32,
}

impl ByAddress {
    fn of(dict: &Bound<'_, PyDict>) -> PyResult<Self> {
        let bits = (2 * dict.len()).max(2).next_power_of_two().trailing_zeros();
        let mut table = ByAddress {
            slots: vec![(0, 0); 1 << bits],
            shift: u64::BITS - bits,
        };
        let (mut at, mut key, mut value): (ffi::Py_ssize_t, *mut ffi::PyObject, *mut ffi::PyObject) =
            (0, std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: the dict's own entries, borrowed while it is held; nothing runs Python code between the calls.
        while unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut at, &mut key, &mut value) } != 0 {
            let code = unsafe { ffi::PyLong_AsLongLong(value) };
            if code == -1 && unsafe { !ffi::PyErr_Occurred().is_null() } {
                return Err(PyErr::fetch(dict.py()));
            }
            let mut slot = table.slot(key as usize);
            while table.slots[slot].0 != 0 {
                slot = (slot + 1) & (table.slots.len() - 1);
            }
            table.slots[slot] = (key as usize, code);
        }
        Ok(table)
    }

    fn slot(&self, address: usize) -> usize {
        (((address as u64) >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn get(&self, address: usize) -> Option<i64> {
        let mut slot = self.slot(address);
        loop {
            match self.slots[slot] {
                (0, _) => return None,
                (key, code) if key == address => return Some(code),
                _ => slot = (slot + 1) & (self.slots.len() - 1),
            }
        }
    }
}

/// The members' subscriptions as codes of the metadata's topics (`spec.subscriptions.SubscriptionCodes`): per
/// member its subscription's number (distinct subscriptions numbered first seen first, equal sets as one), and per
/// entry of each distinct subscription, in its iteration order, the subscription's number and the topic's code in
/// `table_code`; topics absent from it are left out. Native int64 bytes, for `numpy.frombuffer`. With `equal`,
/// every member has the first one's subscription (`Problem.subscriptions_equal`), and no member's is read.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn subscription_rows<'py>(
    members: &Bound<'py, PyTuple>,
    member_cls: &Bound<'py, PyType>,
    table_code: &Bound<'py, PyDict>,
    equal: bool,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let py = members.py();
    let [m_subscription] = slot_offsets(member_cls, ["subscription"])?;
    let number = PyDict::new_bound(py); // subscription -> its number: equal sets are one key
    let mut distinct: Vec<Bound<'py, PyAny>> = Vec::new();
    let mut member_sub = vec![0i64; members.len()];
    let mut last: (*mut ffi::PyObject, i64) = (std::ptr::null_mut(), 0);
    for (position, member) in members.as_slice().iter().enumerate() {
        if unsafe { ffi::PyObject_TypeCheck(member.as_ptr(), member_cls.as_type_ptr()) } == 0 {
            return Err(PyTypeError::new_err("members must be Member objects"));
        }
        let subscription = unsafe { get_slot(member.as_ptr(), m_subscription) };
        if subscription.is_null() {
            return Err(PyTypeError::new_err("a member's subscription must be a frozenset"));
        }
        if subscription != last.0 {
            let key = unsafe { Bound::from_borrowed_ptr(py, subscription) };
            let k = match number.get_item(&key)? {
                Some(k) => k.extract::<i64>()?,
                None => {
                    number.set_item(&key, distinct.len())?;
                    distinct.push(key);
                    distinct.len() as i64 - 1
                }
            };
            last = (subscription, k);
        }
        member_sub[position] = last.1;
        if equal {
            break; // every member has this one: all numbered 0
        }
    }
    // the table by address pays for itself when there are at least as many entries to look up as it has keys
    let entries: usize = distinct.iter().map(|s| s.len().unwrap_or(0)).sum();
    let by_address = if entries >= table_code.len() {
        Some(ByAddress::of(table_code)?)
    } else {
        None
    };
    let (mut sub, mut codes) = (Vec::new(), Vec::new());
    for (k, subscription) in distinct.iter().enumerate() {
        if unsafe { ffi::PyAnySet_Check(subscription.as_ptr()) } == 0 {
            return Err(PyTypeError::new_err("a member's subscription must be a frozenset"));
        }
        // the set's own entries, borrowed, and the dict's value for each: no iterator, no reference counting
        let (mut at, mut topic, mut hash): (ffi::Py_ssize_t, *mut ffi::PyObject, ffi::Py_hash_t) =
            (0, std::ptr::null_mut(), 0);
        while unsafe { ffi::_PySet_NextEntry(subscription.as_ptr(), &mut at, &mut topic, &mut hash) } != 0 {
            if let Some(code) = by_address.as_ref().and_then(|table| table.get(topic as usize)) {
                sub.push(k as i64);
                codes.push(code);
                continue;
            }
            let code = unsafe { ffi::PyDict_GetItemWithError(table_code.as_ptr(), topic) }; // an equal str, or none
            if code.is_null() {
                if unsafe { !ffi::PyErr_Occurred().is_null() } {
                    return Err(PyErr::fetch(py));
                }
                continue; // a topic absent from the metadata
            }
            let code = unsafe { ffi::PyLong_AsLongLong(code) };
            if code == -1 && unsafe { !ffi::PyErr_Occurred().is_null() } {
                return Err(PyErr::fetch(py));
            }
            sub.push(k as i64);
            codes.push(code);
        }
    }
    Ok((bytes(py, &member_sub), bytes(py, &sub), bytes(py, &codes)))
}
