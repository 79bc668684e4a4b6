# SPDX-License-Identifier: GPL-2.0
"""fio job files."""

from __future__ import annotations

import pytest

from bench_helpers import FIO
from stria.bench import jobs


def spec(**kw: object) -> jobs.JobSpec:
    args: dict[str, object] = dict(
        job_id="scaling/2/randread-4k/libaio", workload=jobs.RANDREAD_4K, engine=jobs.LIBAIO,
        targets=(jobs.Target("/dev/nvme0n1", 0), jobs.Target("/dev/nvme1n1", 1)),
        timing=jobs.Timing(3, 1))
    args.update(kw)
    return jobs.JobSpec(**args)  # type: ignore[arg-type]


def test_each_target_is_its_own_group_on_its_numa_node() -> None:
    text = jobs.render(spec())
    sections = text.split("\n\n")
    assert len(sections) == 3
    assert "[1-nvme1n1]\nnew_group\nfilename=/dev/nvme1n1\nnuma_cpu_nodes=1\n" \
           "numa_mem_policy=bind:1" in text
    assert "group_reporting=1" in sections[0]
    assert "runtime=3\nramp_time=1" in text and "direct=1" in text


def test_no_placement_when_node_unknown_or_numa_off() -> None:
    assert "numa_" not in jobs.render(spec(targets=(jobs.Target("/dev/nullb0", None),)))
    assert "numa_" not in jobs.render(spec(numa=False))


def test_numjobs_override_and_extra_options_come_after_the_defaults() -> None:
    text = jobs.render(spec(numjobs=6, extra=("iodepth=64",)))
    assert "numjobs=6" in text
    assert text.index("iodepth=32") < text.index("iodepth=64")  # later wins in fio


def test_hipri_engine() -> None:
    text = jobs.render(spec(engine=jobs.IO_URING_HIPRI))
    assert "ioengine=io_uring\nhipri=1" in text


def test_recorded_fixture_job_is_what_the_generator_writes() -> None:
    rec = (FIO / "baseline-randread-4k.fio").read_text()
    gen = jobs.render(jobs.JobSpec("baseline/drive0/randread-4k/libaio", jobs.RANDREAD_4K,
                                   jobs.LIBAIO, (jobs.Target("/var/tmp/stria-fio-rec/drive0"),),
                                   jobs.Timing(2, 1), extra=("size=64m",)))
    assert gen == rec


def test_fio_args_normalized() -> None:
    assert jobs.normalize_fio_args(["--size=1g", "norandommap", "-iodepth=8"]) == \
        ("size=1g", "norandommap", "iodepth=8")


@pytest.mark.parametrize("bad", ["", "--", "[evil]", "size=1\n[x]", "=3"])
def test_fio_args_cannot_inject_sections(bad: str) -> None:
    with pytest.raises(ValueError):
        jobs.normalize_fio_args([bad])


def test_safe_file_names() -> None:
    assert spec().file_name == "scaling_2_randread-4k_libaio.fio"
    assert jobs.safe_name("arrays/md-r0/x y") == "arrays_md-r0_x_y"


def test_latency_workloads_one_job_at_qd1_and_qd32() -> None:
    text = jobs.render(spec(job_id="latency/raw/qd1/io_uring-hipri",
                            workload=jobs.RANDREAD_4K_QD1, engine=jobs.IO_URING_HIPRI))
    assert "ioengine=io_uring\nhipri=1" in text
    assert "rw=randread\nbs=4k\niodepth=1\nnumjobs=1\n" in text
    # an array gets one job per member: 4 members at QD32
    text = jobs.render(spec(workload=jobs.RANDREAD_4K_QD32, engine=jobs.IO_URING, numjobs=4,
                            targets=(jobs.Target("/dev/stria0"),)))
    assert "iodepth=32\nnumjobs=4\n" in text and "hipri" not in text
