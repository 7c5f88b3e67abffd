//! Reading what a whole group's members hold: their subscriptions.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple, PyType};

use model::slots::{bytes, get_slot, slot_offsets};

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
