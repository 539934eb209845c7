"""Data-parallel sharding across processes started by ``torchrun``.

Every rank computes the same work list (deterministically), takes every ``world``-th item
starting at its rank, and writes its results as chunks into the shared cache folder. After
a barrier, rank 0 reads everything back from the cache and writes the runs; the cache is
the gather channel, so no tensors cross process boundaries and a crashed rank's finished
chunks survive for the rerun. Without ``torchrun`` the process is rank 0 of 1.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence, TypeVar

from reference_models.errors import ReferenceRunError

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    def __post_init__(self) -> None:
        if self.world_size < 1 or not 0 <= self.rank < self.world_size:
            raise ReferenceRunError(f"invalid shard: rank {self.rank} of world size "
                                    f"{self.world_size}")

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def take(self, items: Sequence[T]) -> list[T]:
        """This rank's share: items rank, rank + world, ... (interleaving balances lengths
        when the list is sorted by length)."""
        return list(items[self.rank::self.world_size])


def shard_from_env(environ: dict[str, str] | None = None) -> Shard:
    """Rank and world size as ``torchrun`` exports them (RANK, WORLD_SIZE, LOCAL_RANK)."""
    env = os.environ if environ is None else environ
    try:
        rank = int(env.get("RANK", "0"))
        world = int(env.get("WORLD_SIZE", "1"))
        local = int(env.get("LOCAL_RANK", str(rank)))
    except ValueError as exc:
        raise ReferenceRunError(f"RANK/WORLD_SIZE/LOCAL_RANK must be integers: {exc}") from None
    return Shard(rank=rank, world_size=world, local_rank=local)


class ProcessGroup:
    """torch.distributed when running under torchrun with world size > 1, else a no-op."""


    def __init__(self, shard: Shard, device_type: str) -> None:
        self.shard = shard
        self.active = False
        # torchrun exports MASTER_ADDR; without it the ranks are a simulated split run one
        # after another (rank 0 last), which needs no collective calls.
        if shard.world_size > 1 and os.environ.get("MASTER_ADDR"):
            import torch.distributed as dist

            if not dist.is_initialized():
                backend = "nccl" if device_type == "cuda" else "gloo"
                dist.init_process_group(backend=backend, rank=shard.rank,
                                        world_size=shard.world_size)
            self.active = True

    def barrier(self) -> None:
        if self.active:
            import torch.distributed as dist

            dist.barrier()

    def close(self) -> None:
        if self.active:
            import torch.distributed as dist

            if dist.is_initialized():
                dist.destroy_process_group()
            self.active = False
