# The checker's compiled helpers (native/spec/, built at install by setuptools-rust).
from collections.abc import Sequence

import numpy as np

def cut_sets(cls: type, table: object, shared: object, rows_at: np.ndarray, ordered: Sequence[bool] | None,
             empty: object) -> list: ...

def valid_claim_rows(members: tuple, member_cls: type, set_cls: type, table_cls: type, table_code: dict[str, int],
                     sizes: list[int], subscription: frozenset[str] | None, raw: bool
                     ) -> tuple[bytes, bytes, bytes, bytes | None, bytes | None]: ...

def raw_claimants(members: tuple, member_cls: type, set_cls: type, table_cls: type, table_code: dict[str, int],
                  sizes: list[int]) -> tuple[bytes, bytes]: ...

def group_runs(member_row: np.ndarray, topic_row: np.ndarray, index_row: np.ndarray, members: int, as_listed: bool
               ) -> tuple[bytes, bytes, bytes, bytes, list[bool] | None]: ...

def same_subscriptions(members: tuple, member_cls: type) -> bool: ...

def by_member(ids: list[str] | tuple[str, ...], sets: list) -> dict: ...

def subscription_rows(members: tuple, member_cls: type, table_code: dict[str, int], equal: bool
                      ) -> tuple[bytes, bytes, bytes]: ...
