"""The local torchrun command, as the installed torchrun reads it: one node, agents meeting in
a file beside the job, 127.0.0.1 as the address its workers are given."""

from __future__ import annotations

import pytest
import torch.distributed.run as torchrun

from pipelines.launch.torchrun import RENDEZVOUS_FILE, torchrun_command


@pytest.mark.parametrize("max_restarts", [0, 3])
def test_the_installed_torchrun_reads_the_local_command(tmp_path, monkeypatch, max_restarts):
    # Set, so that torchrun's config does not export its own default into this process.
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    job_path = tmp_path / "job.json"
    command = torchrun_command(job_path, nproc=2, max_restarts=max_restarts)
    config, _, script_args = torchrun.config_from_args(
        torchrun.get_args_parser().parse_args(command[3:])
    )
    assert command[1:3] == ["-m", "torch.distributed.run"]
    assert (config.min_nodes, config.max_nodes, config.nproc_per_node) == (1, 1, 2)
    assert config.max_restarts == max_restarts
    assert config.rdzv_backend == "c10d"
    assert config.rdzv_configs["store_type"] == "file"
    assert config.rdzv_endpoint == str(tmp_path / RENDEZVOUS_FILE)
    assert config.local_addr == "127.0.0.1"
    assert script_args[-4:] == ["-m", "models.train", "--job", str(job_path)]


def test_each_command_has_its_own_rendezvous_id(tmp_path):
    # A rendezvous file left by a killed agent holds a closed or half-joined round under
    # its id; the next launch in the same folder must not join it.
    first, second = (torchrun_command(tmp_path / "job.json", 2, 0) for _ in range(2))
    ids = [[arg for arg in command if arg.startswith("--rdzv-id=")] for command in (first, second)]
    assert len(ids[0]) == len(ids[1]) == 1 and ids[0] != ids[1]


def test_without_a_gpu_device_file_two_processes_and_torchs_own_answer_agrees(tmp_path):
    import torch

    from pipelines.launch.torchrun import CPU_PROCESSES, GPU_DEVICE_FILES, default_nproc

    assert default_nproc([str(tmp_path / "nvidia[0-9]*")]) == CPU_PROCESSES
    # Where a device file exists, torch decides (on this machine: no GPU, so two as well).
    (tmp_path / "nvidia0").touch()
    expected = torch.cuda.device_count() if torch.cuda.is_available() else CPU_PROCESSES
    assert default_nproc([str(tmp_path / "nvidia[0-9]*")]) == expected
    assert default_nproc(GPU_DEVICE_FILES) == expected
