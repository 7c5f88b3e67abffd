//! Valid ownership (docs/SPEC.md §2) over a whole group, read straight from the members' and their claimed sets'
//! slots: `spec.ownership`'s path for groups above `SMALL_ROWS`. The same in numpy (gathering the claims into runs,
//! then the rules) is some fifty array calls, 1-2 ms at 2,100 members of one partition each.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFrozenSet, PyTuple, PyType};

use model::slots::{bytes, get_slot, slot_offsets};

const MEMBER_SLOTS: [&str; 3] = ["subscription", "owned", "generation"];
const SET_SLOTS: [&str; 8] = [
    "table", "count", "_src", "_at", "_lists", "_codes", "_bounds", "_indices",
];
const TABLE_SLOTS: [&str; 1] = ["names"];

/// One group's shared arrays (`model._Shared`: codes, bounds, indices, rows_at, runs_at), read once per call.
struct Shared {
    codes: Vec<i64>,
    bounds: Vec<i64>,
    indices: Vec<i32>,
    rows_at: Vec<i64>,
    runs_at: Vec<i64>,
}

/// Reads claimed sets in whichever form each holds: its place in a group's shared arrays (`_src`, `_at`: the
/// sets of an output, or of claims read from a file), its own arrays, or plain tuples (`_lists`). The shared
/// arrays are read once per group and a set's runs are slices of them; the other forms are copied into one
/// scratch buffer, reused from set to set.
struct Reader {
    at: [ffi::Py_ssize_t; 8],
    groups: Vec<(usize, Shared)>,
    scratch: (Vec<i64>, Vec<i64>, Vec<i32>),
}

impl Reader {
    /// (topic codes, bounds, indices) of `set`; the bounds start at its first index's place among `indices`.
    fn runs(&mut self, py: Python<'_>, set: *mut ffi::PyObject) -> PyResult<(&[i64], &[i64], &[i32])> {
        let [_, _, src, pos, lists, codes, bounds, indices] = self.at.map(|offset| unsafe { get_slot(set, offset) });
        if !src.is_null() {
            // the set's own arrays, when made, are slices of these: reading the group's once beats a buffer per set
            let k = match self.groups.iter().position(|(id, _)| *id == src as usize) {
                Some(k) => k,
                None => {
                    self.groups.push((src as usize, shared(py, src)?));
                    self.groups.len() - 1
                }
            };
            let group = &self.groups[k].1;
            let i = int(pos, "_at")? as usize;
            let (ra, rb) = (group.runs_at[i] as usize, group.runs_at[i + 1] as usize);
            let (a, b) = (group.rows_at[i] as usize, group.rows_at[i + 1] as usize);
            return Ok((
                &group.codes[ra..rb],
                &group.bounds[ra + i..rb + i + 1],
                &group.indices[a..b],
            ));
        }
        let (c, bd, ix) = &mut self.scratch;
        c.clear();
        bd.clear();
        ix.clear();
        if !codes.is_null() && !bounds.is_null() && !indices.is_null() {
            c.extend(array::<i64>(py, codes)?);
            bd.extend(array::<i64>(py, bounds)?);
            ix.extend(array::<i32>(py, indices)?);
        } else if !lists.is_null() {
            let parts = unsafe { Bound::from_borrowed_ptr(py, lists) };
            let parts = parts
                .downcast::<PyTuple>()
                .map_err(|_| PyTypeError::new_err("_lists must be a tuple"))?;
            c.extend(ints(&parts.get_item(0)?, "a set's topic codes")?);
            bd.extend(ints(&parts.get_item(1)?, "a set's bounds")?);
            for index in ints(&parts.get_item(2)?, "a set's indices")? {
                ix.push(i32::try_from(index).map_err(|_| PyValueError::new_err("a set's indices must be int32"))?);
            }
        } else {
            return Err(PyValueError::new_err(
                "a claimed set holds neither arrays, shared arrays nor lists",
            ));
        }
        Ok((c, bd, ix))
    }
}

fn shared(py: Python<'_>, src: *mut ffi::PyObject) -> PyResult<Shared> {
    let parts = unsafe { Bound::from_borrowed_ptr(py, src) };
    let parts = parts
        .downcast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err("_src must be a tuple"))?;
    if parts.len() != 5 {
        return Err(PyValueError::new_err("_src must hold five arrays"));
    }
    let part = |k: usize| parts.get_item(k).map(|p| p.as_ptr());
    Ok(Shared {
        codes: array(py, part(0)?)?,
        bounds: array(py, part(1)?)?,
        indices: array(py, part(2)?)?,
        rows_at: array(py, part(3)?)?,
        runs_at: array(py, part(4)?)?,
    })
}

/// Which claims rule 2 keeps: those of a topic the claimant subscribes to, each member's own subscription
/// read per run (`Each`) or, when every member has the same one, once per table (`One`); or every claim (`Off`:
/// raw claims, as a cooperative round reads them).
#[derive(Clone, Copy)]
enum Rule2<'a, 'py> {
    Each,
    One(&'a Bound<'py, PyFrozenSet>),
    Off,
}

/// A set's table translated once: per code of the set's own table, the problem's topic code (-1 for a topic absent
/// from the metadata), the topic's name, and, under `Rule2::One`, whether the one subscription lists it.
struct Translated {
    code: Vec<i64>,
    name: Vec<*mut ffi::PyObject>,
    listed: Vec<bool>,
}

/// A set's table, translated (`Translated`).
fn translate(
    py: Python<'_>,
    table: *mut ffi::PyObject,
    t_names: ffi::Py_ssize_t,
    table_code: &Bound<'_, PyDict>,
    rule2: Rule2<'_, '_>,
) -> PyResult<Translated> {
    let names = unsafe { Bound::from_borrowed_ptr(py, get_slot(table, t_names)) };
    let names = names
        .downcast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err("a table's names must be a tuple"))?;
    let mut translated = Translated {
        code: Vec::new(),
        name: Vec::new(),
        listed: Vec::new(),
    };
    for name in names.iter() {
        let code = match table_code.get_item(&name)? {
            Some(code) => int(code.as_ptr(), "a topic code")?,
            None => -1,
        };
        translated.listed.push(match rule2 {
            Rule2::One(subscription) => code >= 0 && subscription.contains(&name)?,
            _ => true,
        });
        translated.code.push(code);
        translated.name.push(name.as_ptr()); // borrowed: the table's tuple holds it for the whole call
    }
    Ok(translated)
}

fn int(obj: *mut ffi::PyObject, what: &str) -> PyResult<i64> {
    let value = unsafe { ffi::PyLong_AsLongLong(obj) };
    if value == -1 && unsafe { !ffi::PyErr_Occurred().is_null() } {
        unsafe { ffi::PyErr_Clear() };
        return Err(PyTypeError::new_err(format!("{what} must be an int of 64 bits")));
    }
    Ok(value)
}

fn ints(tuple: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<i64>> {
    let tuple = tuple
        .downcast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a tuple")))?;
    tuple.iter().map(|v| int(v.as_ptr(), what)).collect()
}

fn array<T: pyo3::buffer::Element + Copy>(py: Python<'_>, obj: *mut ffi::PyObject) -> PyResult<Vec<T>> {
    let obj = unsafe { Bound::from_borrowed_ptr(py, obj) };
    pyo3::buffer::PyBuffer::<T>::get_bound(&obj)?.to_vec(py)
}

/// The claims of a whole group that pass rule 1 (an existing partition) and `rule2`, as (global partition id,
/// member position) in member order, with each member's generation and the global ids' topic offsets; `raw`, when
/// asked for, every claim that passes rule 1.
struct Claims {
    claims: Vec<(i64, u32)>,
    raw: Vec<(i64, u32)>,
    generation: Vec<i64>,
    offsets: Vec<i64>,
}

/// Reads every member's claimed set (`Claims`). `members` are `member_cls` objects whose claims are `set_cls`
/// objects over `table_cls` tables; `table_code` numbers every topic of the metadata and `sizes` gives each one's
/// partitions.
#[allow(clippy::too_many_arguments)]
fn read_claims<'py>(
    py: Python<'py>,
    members: &Bound<'py, PyTuple>,
    member_cls: &Bound<'py, PyType>,
    set_cls: &Bound<'py, PyType>,
    table_cls: &Bound<'py, PyType>,
    table_code: &Bound<'py, PyDict>,
    sizes: &[i64],
    rule2: Rule2<'_, 'py>,
    keep_raw: bool,
) -> PyResult<Claims> {
    let [m_subscription, m_owned, m_generation] = slot_offsets(member_cls, MEMBER_SLOTS)?;
    let set_at = slot_offsets(set_cls, SET_SLOTS)?;
    let mut reader = Reader {
        at: set_at,
        groups: Vec::new(),
        scratch: Default::default(),
    };
    let [t_names] = slot_offsets(table_cls, TABLE_SLOTS)?;
    if sizes.len() != table_code.len() || sizes.iter().any(|&s| s < 0) {
        return Err(PyValueError::new_err(
            "sizes must give every coded topic's partition count",
        ));
    }
    let mut offsets = vec![0i64; sizes.len() + 1];
    for (k, size) in sizes.iter().enumerate() {
        offsets[k + 1] = offsets[k] + size;
    }
    let mut tables: Vec<Translated> = Vec::new();
    let mut table_at: HashMap<usize, usize> = HashMap::new();
    let mut last_table = (0usize, 0usize); // sets built together share one table: most lookups are the last one
    if members.len() >= 1 << 31 {
        return Err(PyValueError::new_err("too many members"));
    }
    let mut generation = Vec::with_capacity(members.len());
    let mut claims: Vec<(i64, u32)> = Vec::new();
    // Every member and claimed set checked first, and the claims counted, so the rows are allocated once.
    let mut total = 0usize;
    for member in members.as_slice() {
        let member = member.as_ptr();
        if unsafe { ffi::PyObject_TypeCheck(member, member_cls.as_type_ptr()) } == 0 {
            return Err(PyTypeError::new_err("members must be Member objects"));
        }
        let owned = unsafe { get_slot(member, m_owned) };
        if owned.is_null() || unsafe { ffi::PyObject_TypeCheck(owned, set_cls.as_type_ptr()) } == 0 {
            return Err(PyTypeError::new_err("a member's claims must be a PartitionSet"));
        }
        total += int(unsafe { get_slot(owned, set_at[1]) }, "a set's count")?.max(0) as usize;
    }
    claims.reserve(total);
    let mut raw = Vec::with_capacity(if keep_raw { total } else { 0 });
    for (position, member) in members.as_slice().iter().enumerate() {
        let member = member.as_ptr();
        let owned = unsafe { get_slot(member, m_owned) }; // both checked above
        if int(unsafe { get_slot(owned, set_at[1]) }, "a set's count")? == 0 {
            generation.push(0); // never read: the member claims nothing
            continue;
        }
        generation.push(int(unsafe { get_slot(member, m_generation) }, "a member's generation")?);
        let table = unsafe { get_slot(owned, set_at[0]) };
        if table.is_null() || unsafe { ffi::PyObject_TypeCheck(table, table_cls.as_type_ptr()) } == 0 {
            return Err(PyTypeError::new_err("a set's table must be a TopicTable"));
        }
        if last_table.0 != table as usize || tables.is_empty() {
            let k = match table_at.entry(table as usize) {
                Entry::Occupied(known) => *known.get(),
                Entry::Vacant(new) => {
                    tables.push(translate(py, table, t_names, table_code, rule2)?);
                    *new.insert(tables.len() - 1)
                }
            };
            last_table = (table as usize, k);
        }
        let translated = &tables[last_table.1];
        let own_subscription = unsafe { get_slot(member, m_subscription) };
        let (codes, bounds, indices) = reader.runs(py, owned)?;
        if bounds.len() != codes.len() + 1 {
            return Err(PyValueError::new_err(
                "a set's bounds must have one entry more than its topic codes",
            ));
        }
        for (k, &code) in codes.iter().enumerate() {
            let (lo, hi) = (bounds[k] - bounds[0], bounds[k + 1] - bounds[0]);
            if lo < 0 || hi < lo || hi as usize > indices.len() {
                return Err(PyValueError::new_err("a set's bounds must ascend within its indices"));
            }
            let topic = *translated
                .code
                .get(code as usize)
                .filter(|_| code >= 0)
                .ok_or_else(|| PyValueError::new_err("a set's topic code is outside its table"))?;
            if topic < 0 {
                continue; // rule 1: an unknown topic
            }
            let subscribed = match rule2 {
                Rule2::Each => match unsafe { ffi::PySet_Contains(own_subscription, translated.name[code as usize]) } {
                    contains if contains < 0 => return Err(PyErr::fetch(py)),
                    contains => contains == 1,
                },
                _ => translated.listed[code as usize],
            };
            if !subscribed && !keep_raw {
                continue; // rule 2
            }
            let size = sizes[topic as usize];
            for &index in &indices[lo as usize..hi as usize] {
                if (0..size).contains(&i64::from(index)) {
                    let claim = (offsets[topic as usize] + i64::from(index), position as u32);
                    if keep_raw {
                        raw.push(claim);
                    }
                    if subscribed {
                        claims.push(claim);
                    }
                    // else rule 1 (an index the topic lacks) or rule 2
                }
            }
        }
    }
    Ok(Claims {
        claims,
        raw,
        generation,
        offsets,
    })
}

/// Valid ownership of the whole group as rows sorted by (member position, topic code, index): three byte strings
/// of native int64, int64 and int32 (`numpy.frombuffer`); with `raw`, also `raw_claimants`' two, read in the same
/// pass (else None). The arguments are `read_claims`'s; `subscription`, when every member has that one, lets rule 2
/// be read once per table instead of once per run.
/// The rules: a claim of a topic absent from the metadata or an index outside it is dropped (rule 1), so is one
/// of a topic the member no longer subscribes to (rule 2); a member listing a partition twice claims it once
/// (rule 3); of several claimants, the single one with the highest generation owns it, and a tie at the top
/// means nobody does (rule 4).
#[pyfunction]
#[pyo3(signature = (members, member_cls, set_cls, table_cls, table_code, sizes, subscription, raw))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn valid_claim_rows<'py>(
    py: Python<'py>,
    members: &Bound<'py, PyTuple>,
    member_cls: &Bound<'py, PyType>,
    set_cls: &Bound<'py, PyType>,
    table_cls: &Bound<'py, PyType>,
    table_code: &Bound<'py, PyDict>,
    sizes: Vec<i64>,
    subscription: Option<&Bound<'py, PyFrozenSet>>,
    raw: bool,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Option<Bound<'py, PyBytes>>,
    Option<Bound<'py, PyBytes>>,
)> {
    let rule2 = subscription.map_or(Rule2::Each, Rule2::One);
    let Claims {
        claims,
        raw: raw_claims,
        generation,
        offsets,
    } = read_claims(
        py, members, member_cls, set_cls, table_cls, table_code, &sizes, rule2, raw,
    )?;
    let partitions = offsets[sizes.len()];
    let owners = by_member(&owners(&claims, &generation, partitions), generation.len());
    let mut member_rows = Vec::with_capacity(owners.len());
    let mut topic_rows = Vec::with_capacity(owners.len());
    let mut index_rows = Vec::with_capacity(owners.len());
    let mut topic = 0usize;
    for (k, &(member, gid)) in owners.iter().enumerate() {
        // a member's partitions ascend, so the topic only changes between runs: search only then
        if k == 0 || owners[k - 1].0 != member || gid < offsets[topic] || gid >= offsets[topic + 1] {
            topic = offsets.partition_point(|&o| o <= gid) - 1;
        }
        member_rows.push(member as i64);
        topic_rows.push(topic as i64);
        index_rows.push((gid - offsets[topic]) as i32);
    }
    let (claimed, claimant) = if raw {
        let (claimed, claimant) = sole_claimants(raw_claims, partitions);
        (Some(bytes(py, &claimed)), Some(bytes(py, &claimant)))
    } else {
        (None, None)
    };
    Ok((
        bytes(py, &member_rows),
        bytes(py, &topic_rows),
        bytes(py, &index_rows),
        claimed,
        claimant,
    ))
}

/// Who claims each claimed partition, raw (rules 2-4 not applied: any subscription, any generation): the
/// partitions' global ids (topic code order), ascending, and per partition `SEVERAL` (-2) or the position of its
/// only claimant (a member's repeats count once); as native int64 bytes. A cooperative round waits on these
/// (`impl/cooperative.py` `withhold`). The arguments are `read_claims`'s.
#[pyfunction]
pub fn raw_claimants<'py>(
    py: Python<'py>,
    members: &Bound<'py, PyTuple>,
    member_cls: &Bound<'py, PyType>,
    set_cls: &Bound<'py, PyType>,
    table_cls: &Bound<'py, PyType>,
    table_code: &Bound<'py, PyDict>,
    sizes: Vec<i64>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let read = read_claims(
        py,
        members,
        member_cls,
        set_cls,
        table_cls,
        table_code,
        &sizes,
        Rule2::Off,
        false,
    )?;
    let (claimed, claimant) = sole_claimants(read.claims, read.offsets[sizes.len()]);
    Ok((bytes(py, &claimed), bytes(py, &claimant)))
}

/// `raw_claimants` of the claims (global partition id, member position): a table entry per partition when they are
/// few beside the claims, else a sort of the claims (a topic may have millions of partitions and a handful of
/// claims).
fn sole_claimants(mut claims: Vec<(i64, u32)>, partitions: i64) -> (Vec<i64>, Vec<i64>) {
    const NOBODY: i64 = -1;
    const SEVERAL: i64 = -2;
    let (mut gids, mut claimants) = (Vec::new(), Vec::new());
    if partitions <= 4 * claims.len() as i64 + 4096 {
        let mut claimant = vec![NOBODY; partitions as usize];
        for &(gid, member) in &claims {
            let held = &mut claimant[gid as usize];
            if *held == NOBODY {
                *held = i64::from(member);
            } else if *held != i64::from(member) {
                *held = SEVERAL;
            }
        }
        for (gid, &who) in claimant.iter().enumerate().filter(|(_, &who)| who != NOBODY) {
            gids.push(gid as i64);
            claimants.push(who);
        }
    } else {
        claims.sort_unstable();
        claims.dedup();
        for group in claims.chunk_by(|a, b| a.0 == b.0) {
            gids.push(group[0].0);
            claimants.push(if group.len() == 1 {
                i64::from(group[0].1)
            } else {
                SEVERAL
            });
        }
    }
    (gids, claimants)
}

/// Rules 3 and 4 over the claims (global partition id, member position): the winners' partition ids in
/// partition order, with each one's member. A table per partition when the partitions are few beside the claims
/// (its entry: the first claimant of the highest generation so far, and a bit for a tie), else a sort of the
/// claims (a topic may have millions of partitions and a handful of claims).
fn owners(claims: &[(i64, u32)], generation: &[i64], partitions: i64) -> Vec<(u32, i64)> {
    const NOBODY: u32 = u32::MAX;
    const TIED: u32 = 1 << 31; // member positions stay below it (checked by the caller)
    if partitions <= 4 * claims.len() as i64 + 4096 {
        let mut best = vec![NOBODY; partitions as usize];
        for &(gid, member) in claims {
            let held = best[gid as usize];
            let holder = held & !TIED;
            if held == NOBODY {
                best[gid as usize] = member;
            } else if holder != member {
                // (the same member again is rule 3: it holds the top generation already)
                match generation[member as usize].cmp(&generation[holder as usize]) {
                    std::cmp::Ordering::Greater => best[gid as usize] = member,
                    std::cmp::Ordering::Equal => best[gid as usize] = holder | TIED, // rule 4
                    std::cmp::Ordering::Less => {}
                }
            }
        }
        return best
            .iter()
            .enumerate()
            .filter(|&(_, &held)| held & TIED == 0)
            .map(|(g, &member)| (member, g as i64))
            .collect();
    }
    let mut keyed: Vec<(i64, i64, u32)> = claims
        .iter()
        .map(|&(gid, member)| (gid, -generation[member as usize], member))
        .collect();
    keyed.sort_unstable();
    keyed.dedup(); // rule 3
    keyed
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|group| group.len() == 1 || group[1].1 != group[0].1) // rule 4
        .map(|group| (group[0].2, group[0].0))
        .collect()
}

/// The winners (member, partition id), in partition order, regrouped by member: a counting sort, stable, so each
/// member's partitions stay ascending (a comparison sort of a million claims costs more than reading them).
fn by_member(won: &[(u32, i64)], members: usize) -> Vec<(u32, i64)> {
    let mut start = vec![0usize; members + 1];
    won.iter().for_each(|&(member, _)| start[member as usize + 1] += 1);
    for m in 0..members {
        start[m + 1] += start[m];
    }
    let mut out = vec![(0u32, 0i64); won.len()];
    for &(member, gid) in won {
        out[start[member as usize]] = (member, gid);
        start[member as usize] += 1;
    }
    out
}
