# The built-in assignors' compiled kernels (native/impl/, built at install by setuptools-rust).
import numpy as np

def by_id(members: tuple, member_cls: type) -> tuple[list[str], bytes]: ...

def place_two_phase(members: tuple, member_cls: type, valid_member: np.ndarray, valid_topic: np.ndarray,
                    valid_index: np.ndarray, base: list[int], offsets: list[int]
                    ) -> tuple[list[str], bytes, bytes, bytes]: ...

def withheld(member: np.ndarray, topic: np.ndarray, index: np.ndarray, code: list[int], sizes: list[int],
             receiver: list[int], valid_member: np.ndarray, valid_topic: np.ndarray, valid_index: np.ndarray,
             claimed: np.ndarray, claimant: np.ndarray) -> tuple[bytes, bytes, bytes]: ...
