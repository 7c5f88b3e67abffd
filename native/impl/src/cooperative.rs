//! A cooperative round's second pass (`impl/cooperative.py` `withhold`): which of the eager output's rows wait
//! for their partition's previous owner to revoke it. In numpy, the same lookups and the regrouping of the
//! members that lose a partition are some twenty array calls, more than the rest of `withhold`.

use pyo3::buffer::{PyBuffer, ReadOnlyCell};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use model::slots::bytes;

/// A value per partition, for some partitions: a table entry per partition when they are few beside the values,
/// else the (partition, value) pairs sorted, searched (a topic may have millions of partitions and a handful of
/// claims).
enum ByPartition {
    Table(Vec<i64>),
    Sorted(Vec<(i64, i64)>),
}

impl ByPartition {
    const NONE: i64 = i64::MIN;

    /// From (partition, value) pairs of distinct partitions in 0..`partitions`.
    fn of(mut pairs: Vec<(i64, i64)>, partitions: i64) -> Self {
        if partitions <= 4 * pairs.len() as i64 + 4096 {
            let mut table = vec![Self::NONE; partitions as usize];
            pairs.iter().for_each(|&(g, value)| table[g as usize] = value);
            return Self::Table(table);
        }
        pairs.sort_unstable();
        Self::Sorted(pairs)
    }

    fn get(&self, g: i64) -> Option<i64> {
        match self {
            Self::Table(table) => Some(table[g as usize]).filter(|&v| v != Self::NONE),
            Self::Sorted(pairs) => pairs.binary_search_by(|p| p.0.cmp(&g)).ok().map(|k| pairs[k].1),
        }
    }
}

/// A buffer's items, read in place.
fn cells<'a, T: pyo3::buffer::Element>(py: Python<'a>, buffer: &'a PyBuffer<T>) -> PyResult<&'a [ReadOnlyCell<T>]> {
    buffer
        .as_slice(py)
        .ok_or_else(|| PyValueError::new_err("arrays must be contiguous"))
}

/// The rows of an eager output (`member`, `topic`, `index`: an output member's position, a topic code of the
/// output's table, the partition) that a cooperative round holds back: rows whose receiver does not validly own
/// the partition (`valid_*`: `spec.ownership.ValidClaims`) while some other member claims it raw (`claimed`,
/// `claimant`: `spec.ownership.raw_claimants`). `code` maps the output's topic codes to the problem's (-1: a topic it lacks),
/// whose partition counts are `sizes` (global ids: topic by topic, in code order); `receiver` maps output member
/// positions to the problem's (-1: not one of its members).
///
/// Returns, as native int64 bytes: the output members that lose a partition (ascending), and for every row of
/// theirs that stays, its member's rank among them and the row's position.
#[pyfunction]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn withheld<'py>(
    py: Python<'py>,
    member: PyBuffer<i64>,
    topic: PyBuffer<i64>,
    index: PyBuffer<i32>,
    code: Vec<i64>,
    sizes: Vec<i64>,
    receiver: Vec<i64>,
    valid_member: PyBuffer<i64>,
    valid_topic: PyBuffer<i64>,
    valid_index: PyBuffer<i32>,
    claimed: PyBuffer<i64>,
    claimant: PyBuffer<i64>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let (member, topic, index) = (cells(py, &member)?, cells(py, &topic)?, cells(py, &index)?);
    let (valid_member, valid_topic) = (cells(py, &valid_member)?, cells(py, &valid_topic)?);
    let valid_index = cells(py, &valid_index)?;
    let (claimed, claimant) = (cells(py, &claimed)?, cells(py, &claimant)?);
    let mut offsets = vec![0i64; sizes.len() + 1];
    for (k, &size) in sizes.iter().enumerate() {
        if size < 0 {
            return Err(PyValueError::new_err("sizes must not be negative"));
        }
        offsets[k + 1] = offsets[k] + size;
    }
    if topic.len() != member.len() || index.len() != member.len() {
        return Err(PyValueError::new_err("the rows must have equal lengths"));
    }
    if valid_topic.len() != valid_member.len() || valid_index.len() != valid_member.len() {
        return Err(PyValueError::new_err("the valid claims' rows must have equal lengths"));
    }
    let gid = |t: i64, i: i32| -> Option<i64> {
        let size = *sizes.get(usize::try_from(t).ok()?)?;
        (0..size)
            .contains(&i64::from(i))
            .then(|| offsets[t as usize] + i64::from(i))
    };
    let partitions = offsets[sizes.len()];
    let mut valid = Vec::with_capacity(valid_member.len());
    for k in 0..valid_member.len() {
        let g = gid(valid_topic[k].get(), valid_index[k].get())
            .ok_or_else(|| PyValueError::new_err("a valid claim of a partition the sizes lack"))?;
        valid.push((g, valid_member[k].get()));
    }
    let owner = ByPartition::of(valid, partitions);
    if claimed.len() != claimant.len() || claimed.windows(2).any(|w| w[0].get() >= w[1].get()) {
        return Err(PyValueError::new_err(
            "claimed must ascend and claimant have an entry for each",
        ));
    }
    if claimed.iter().any(|g| !(0..partitions).contains(&g.get())) {
        return Err(PyValueError::new_err("a claimed partition the sizes lack"));
    }
    let claimant = ByPartition::of(
        claimed
            .iter()
            .map(|g| g.get())
            .zip(claimant.iter().map(|c| c.get()))
            .collect(),
        partitions,
    );
    let mut loses = vec![false; receiver.len()];
    let mut held = vec![false; member.len()];
    for row in 0..member.len() {
        let m = usize::try_from(member[row].get())
            .ok()
            .filter(|&m| m < receiver.len())
            .ok_or_else(|| PyValueError::new_err("a row's member is outside receiver"))?;
        let t = usize::try_from(topic[row].get())
            .ok()
            .filter(|&t| t < code.len())
            .ok_or_else(|| PyValueError::new_err("a row's topic is outside code"))?;
        let (r, Some(g)) = (receiver[m], gid(code[t], index[row].get())) else {
            continue; // no such partition
        };
        if r < 0 || owner.get(g) == Some(r) {
            continue; // not a member of the group, or it keeps what it validly owns
        }
        if claimant.get(g).is_some_and(|c| c != r) {
            // several claim it, or one other than its receiver
            held[row] = true;
            loses[m] = true;
        }
    }
    let mut rank = vec![-1i64; receiver.len()];
    let mut losers = Vec::new();
    for (m, _) in loses.iter().enumerate().filter(|(_, &lost)| lost) {
        rank[m] = losers.len() as i64;
        losers.push(m as i64);
    }
    let (mut kept_rank, mut kept_row) = (Vec::new(), Vec::new());
    for row in 0..member.len() {
        let r = rank[member[row].get() as usize];
        if r >= 0 && !held[row] {
            kept_rank.push(r);
            kept_row.push(row as i64);
        }
    }
    Ok((bytes(py, &losers), bytes(py, &kept_rank), bytes(py, &kept_row)))
}
