"""The CPU line the benchmark scripts print: hosts behind one model name must be told apart."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.machine import cpu_description  # noqa: E402


def _cpuinfo(tmp_path: Path, family: int, flags: str) -> Path:
    path = tmp_path / "cpuinfo"
    block = (f"processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: {family}\n"
             f"model\t\t: 17\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 {flags}\n")
    path.write_text(block + "\n" + block.replace("processor\t: 0", "processor\t: 1"))
    return path


def test_amd_hosts_behind_one_name_are_told_apart(tmp_path):
    zen4 = cpu_description(_cpuinfo(tmp_path, 25, "avx2 avx512f"))
    assert zen4.startswith("AMD EPYC (AMD family 25 model 17, Zen 4), AVX-512, ")
    assert "Zen 3), AVX2," in cpu_description(_cpuinfo(tmp_path, 25, "avx2"))
    assert "family 26 model 17, Zen 5)" in cpu_description(_cpuinfo(tmp_path, 26, "avx512f"))


def test_without_cpuinfo_the_platform_is_named(tmp_path):
    line = cpu_description(tmp_path / "missing")
    assert line.endswith(" CPUs") and line.split(",")[0]
