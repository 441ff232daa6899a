"""PyTorch's side of issue 28's bench, on the same GPUs in the same run: tensor.copy_
of 1 GiB from cuda:0 to cuda:1, and torch.distributed all_reduce (NCCL, one process
per GPU) of f32 at 1 MiB, 64 MiB and 1 GiB, timed as bench/multi_gpu.rs times
cudajit's (median of 20 after warm-up, host clock around a synchronised call).
Prints `RESULT torch <row> ...` lines."""
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

REPS = 20


def timed(fn, sync):
    times = []
    for _ in range(REPS):
        sync()
        t = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def peer_copy():
    n = (1 << 30) // 4
    src = torch.arange(n, device="cuda:0", dtype=torch.float32)
    dst = torch.empty(n, device="cuda:1", dtype=torch.float32)
    dst.copy_(src)

    def sync():
        torch.cuda.synchronize(0)
        torch.cuda.synchronize(1)

    t = timed(lambda: dst.copy_(src), sync)
    print(f"RESULT torch peer_copy_1GiB seconds={t:.6f} gbps={n * 4 / t / 1e9:.1f}", flush=True)


def worker(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29517"
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    for label, nbytes in [("1MiB", 1 << 20), ("64MiB", 64 << 20), ("1GiB", 1 << 30)]:
        x = torch.ones(nbytes // 4, device=f"cuda:{rank}", dtype=torch.float32)
        for _ in range(5):
            dist.all_reduce(x)

        def sync():
            torch.cuda.synchronize(rank)
            dist.barrier()
            torch.cuda.synchronize(rank)

        def call():
            dist.all_reduce(x)

        times = []
        for _ in range(REPS):
            sync()
            t = time.perf_counter()
            call()
            torch.cuda.synchronize(rank)
            times.append(time.perf_counter() - t)
        t = statistics.median(times)
        if rank == 0:
            algbw = nbytes / t / 1e9
            busbw = algbw * 2 * (world - 1) / world
            print(f"RESULT torch all_reduce_{label} seconds={t:.6f} algbw={algbw:.1f} busbw={busbw:.1f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    world = torch.cuda.device_count()
    print(f"torch {torch.__version__}, NCCL {torch.cuda.nccl.version()}, {world} GPUs", flush=True)
    if world < 2:
        raise SystemExit("needs two GPUs")
    peer_copy()
    mp.spawn(worker, args=(world,), nprocs=world)
