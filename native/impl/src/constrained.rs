//! KAFKA-12464's two-phase constrained sticky placement (`impl/constrained.py`, docs/ALGORITHMS.md) over a whole
//! group: the layout (members by id, every member's valid claims in keep order), both phases and the output rows.
//! In numpy the same is some thirty array calls and a Python sort of the member ids, 1 ms at 2,100 members.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple, PyType};

use crate::members::{member_ids, sorted_by_id};
use model::slots::bytes;

/// The two-phase placement of a group with equal subscriptions. `members` are `member_cls` objects (read: their
/// ids); valid ownership comes as its rows (`ValidClaims`: member position, topic code, index, sorted); `base`
/// gives, per topic code of those rows, the global id of its partition 0 among the subscribed topics, whose
/// bounds are `offsets` (global id g is partition g - offsets[k] of subscribed topic k).
///
/// Returns the member ids sorted (the output's member order, M) and the output's rows grouped by member (M
/// order), each member's partitions ascending: member, topic (subscribed topic number) and index, as native
/// int64, int64 and int32 bytes.
///
/// The steps, as `impl/constrained_small.py` `place_two_phase` takes them: with P partitions over N members,
/// f = P / N, c = the ceiling and r = P mod N. Phase 1: every member keeps the first min(valid, f) of its valid
/// claims in keep order (rank within its topic first, then topic and index), and the first r members (M order)
/// that hold at least c (when c > f) keep c. Phase 2: the first r - (those) other members aim for c, the rest
/// for f; the unassigned partitions, ascending, are dealt round-robin, lap k visiting in M order every member
/// still k or more short of its aim.
#[pyfunction]
#[pyo3(signature = (members, member_cls, valid_member, valid_topic, valid_index, base, offsets))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn place_two_phase<'py>(
    py: Python<'py>,
    members: &Bound<'py, PyTuple>,
    member_cls: &Bound<'py, PyType>,
    valid_member: PyBuffer<i64>,
    valid_topic: PyBuffer<i64>,
    valid_index: PyBuffer<i32>,
    base: Vec<i64>,
    offsets: Vec<i64>,
) -> PyResult<(
    Bound<'py, PyList>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let n = members.len();
    let partitions = *offsets
        .last()
        .ok_or_else(|| PyValueError::new_err("offsets must not be empty"))?;
    if n == 0 || offsets.windows(2).any(|w| w[1] < w[0]) || offsets[0] != 0 {
        return Err(PyValueError::new_err(
            "a group with members and ascending offsets from 0 is needed",
        ));
    }
    let ids = member_ids(members, member_cls)?;
    let order = sorted_by_id(py, &ids)?;
    let mut rank_of = vec![0usize; n];
    for (k, &i) in order.iter().enumerate() {
        rank_of[i] = k;
    }

    // Every member's valid claims in keep order: sorted by (member in M, rank within its topic, global id).
    let (vm, vt, vi) = (
        valid_member.to_vec(py)?,
        valid_topic.to_vec(py)?,
        valid_index.to_vec(py)?,
    );
    if vt.len() != vm.len() || vi.len() != vm.len() {
        return Err(PyValueError::new_err("the valid claims' rows must be parallel"));
    }
    let mut keyed: Vec<(usize, u32, i64)> = Vec::with_capacity(vm.len());
    let (mut last, mut rank) = ((-1i64, -1i64), 0u32);
    for ((&m, &t), &i) in vm.iter().zip(&vt).zip(&vi) {
        rank = if (m, t) == last { rank + 1 } else { 0 };
        last = (m, t);
        let start = base.get(t as usize).copied().filter(|&b| t >= 0 && b >= 0);
        let (Some(start), true) = (start, (0..n as i64).contains(&m)) else {
            return Err(PyValueError::new_err(
                "a valid claim outside the group or its subscribed topics",
            ));
        };
        keyed.push((rank_of[m as usize], rank, start + i64::from(i)));
    }
    keyed.sort_unstable();
    let mut valid = vec![0i64; n];
    keyed.iter().for_each(|k| valid[k.0] += 1);
    let claims: Vec<i64> = keyed.iter().map(|k| k.2).collect();

    // Phase 1, then each member's aim in phase 2 (`need`: how many it is dealt).
    let (f, r) = (partitions / n as i64, partitions % n as i64);
    let c = f + i64::from(r > 0);
    let (mut n_max, mut extra) = (0i64, 0i64);
    let keeps_max: Vec<bool> = valid
        .iter()
        .map(|&v| {
            let takes = v >= c && c > f && n_max < r;
            n_max += i64::from(takes);
            takes
        })
        .collect();
    let kept: Vec<i64> = valid
        .iter()
        .zip(&keeps_max)
        .map(|(&v, &km)| if km { c } else { v.min(f) })
        .collect();
    let need: Vec<i64> = keeps_max
        .iter()
        .zip(&kept)
        .map(|(&km, &k)| {
            let aims = !km && extra < r - n_max;
            extra += i64::from(aims);
            (if km || aims { c } else { f }) - k
        })
        .collect();

    // Each member's partitions, laid out back to back in M order: the kept prefix of its claims, then what the
    // deal gives it, then sorted.
    let mut start = vec![0usize; n + 1];
    for m in 0..n {
        start[m + 1] = start[m] + (kept[m] + need[m]) as usize;
    }
    if start[n] != partitions as usize {
        return Err(PyValueError::new_err("the quotas do not add up to the partitions"));
    }
    let mut gids = vec![0i64; start[n]];
    let mut filled = start[..n].to_vec();
    let mut taken = vec![false; partitions as usize];
    let mut at = 0usize;
    for m in 0..n {
        for &g in &claims[at..at + kept[m] as usize] {
            taken[g as usize] = true;
            gids[filled[m]] = g;
            filled[m] += 1;
        }
        at += valid[m] as usize;
    }
    let mut free = (0..partitions).filter(|&g| !taken[g as usize]);
    for lap in 0..need.iter().copied().max().unwrap_or(0) {
        for m in (0..n).filter(|&m| need[m] > lap) {
            gids[filled[m]] = free
                .next()
                .ok_or_else(|| PyValueError::new_err("the deal ran out of partitions"))?;
            filled[m] += 1;
        }
    }

    let mut member_rows = Vec::with_capacity(gids.len());
    let mut topic_rows = Vec::with_capacity(gids.len());
    let mut index_rows = Vec::with_capacity(gids.len());
    for m in 0..n {
        let mine = &mut gids[start[m]..start[m + 1]];
        mine.sort_unstable();
        let mut topic = 0usize;
        for &g in mine.iter() {
            while offsets[topic + 1] <= g {
                topic += 1;
            }
            member_rows.push(m as i64);
            topic_rows.push(topic as i64);
            index_rows.push((g - offsets[topic]) as i32);
        }
    }
    let sorted_ids = PyList::new_bound(
        py,
        order.iter().map(|&i| unsafe { Bound::from_borrowed_ptr(py, ids[i]) }),
    );
    Ok((
        sorted_ids,
        bytes(py, &member_rows),
        bytes(py, &topic_rows),
        bytes(py, &index_rows),
    ))
}
