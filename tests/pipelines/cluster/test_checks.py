"""Cluster checks without Dagster: hardware detection, the throughput gap, environment drift,
cost and the chargeback table, and the deploy files (the committed ones, and broken ones)."""

import datetime as dt

import pytest

from models.config import ModelConfig, TrainConfig
from models.environment import fingerprint
from pipelines.cluster.baseline import (
    Baseline,
    Baselines,
    check_environment,
    drifted_fields,
    load_baselines,
    version_matches,
)
from pipelines.cluster.chargeback import (
    Chargeback,
    ChargebackEntry,
    chargeback_owner,
    chargeback_root,
)
from pipelines.cluster.cost import (
    Price,
    PriceTable,
    history_times,
    load_prices,
    training_cost,
)
from pipelines.cluster.deploy_files import DeployFileError
from pipelines.cluster.hardware import hardware_type, reference_hardware
from pipelines.cluster.profiles import (
    Reference,
    config_key,
    load_reference_profiles,
    steady_state_samples_per_second,
    throughput_gap,
)

# --- hardware -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environment", "kind", "reference"),
    [
        ({"python": "3.11.7", "cpus": "2"}, "cpu", "cpu-2cores"),
        ({"python": "3.11.7"}, "cpu", "cpu"),
        ({"gpu": "NVIDIA H100 80GB HBM3", "cpus": "96"}, "h100", "h100"),
        ({"gpu": "NVIDIA H100 NVL"}, "h100", "h100"),
        ({"gpu": "NVIDIA H200"}, "h200", "h200"),
        ({"gpu": "NVIDIA GB200"}, "gb200", "gb200"),
        # Whole tokens: a GH200 is not an H200, a B200 not a GB200.
        ({"gpu": "NVIDIA GH200 480GB"}, "gpu-nvidia-gh200-480gb", "gpu-nvidia-gh200-480gb"),
        ({"gpu": "NVIDIA B200"}, "gpu-nvidia-b200", "gpu-nvidia-b200"),
        (
            {"gpu": "NVIDIA A100-SXM4-80GB"},
            "gpu-nvidia-a100-sxm4-80gb",
            "gpu-nvidia-a100-sxm4-80gb",
        ),
    ],
)
def test_hardware_from_the_fingerprint(environment, kind, reference):
    assert hardware_type(environment) == kind
    assert reference_hardware(environment) == reference


def test_this_machine_is_a_cpu_with_its_core_count():
    environment = fingerprint()
    assert hardware_type(environment) == "cpu"
    assert reference_hardware(environment) == f"cpu-{environment['cpus']}cores"


# --- throughput gap -----------------------------------------------------------------------

CPU_REF = Reference("cpu-2cores", "batch1024-embed8-hidden64x32-world2", 400_000.0, None, "m")
GPU_REF = Reference("h100", "batch4096-embed32-hidden512x512-world8", 1_000_000.0, 0.40, "m")
UNKNOWN_REF = Reference("h200", "batch1024-embed8-hidden64x32-world32", None, None, "no run")


@pytest.mark.parametrize(
    ("measured", "mfu", "reference", "threshold", "passed", "ratio", "words"),
    [
        (400_000, None, CPU_REF, 0.92, True, 1.0, "0.0% above the reference 400,000 samples/s"),
        (368_000, None, CPU_REF, 0.92, True, 0.92, "8.0% below the reference"),
        (366_000, None, CPU_REF, 0.92, False, 0.915, "8.5% below the reference 400,000"),
        (300_000, None, CPU_REF, 0.92, False, 0.75, "25.0% below"),
        (300_000, None, CPU_REF, 0.70, True, 0.75, "threshold 70% of reference"),
        (440_000, None, CPU_REF, 0.92, True, 1.1, "10.0% above"),
        # A GPU passes only when MFU, too, reaches the threshold of the reference MFU.
        (950_000, 0.38, GPU_REF, 0.92, True, 0.95, "MFU 38.0% is 5.0% below the reference MFU"),
        (950_000, 0.30, GPU_REF, 0.92, False, 0.95, "MFU 30.0% is 25.0% below"),
        (950_000, None, GPU_REF, 0.92, True, 0.95, "5.0% below the reference 1,000,000"),
        # Nothing measured for the reference: no verdict, and the message says why.
        (123_456, 0.31, UNKNOWN_REF, 0.92, True, None, "no reference for h200/batch1024"),
    ],
)
def test_throughput_gap(measured, mfu, reference, threshold, passed, ratio, words):
    gap = throughput_gap(measured, mfu, reference, threshold)
    assert gap.passed is passed
    assert gap.ratio == (pytest.approx(ratio) if ratio is not None else None)
    assert words in gap.message
    assert reference.label in gap.message


def test_no_reference_says_not_compared_with_the_note():
    gap = throughput_gap(123_456.0, None, UNKNOWN_REF)
    assert gap.message == (
        "no reference for h200/batch1024-embed8-hidden64x32-world32 (no run); "
        "measured 123,456 samples/s, not compared"
    )


@pytest.mark.parametrize(("threshold", "measured"), [(0.0, 1.0), (1.5, 1.0), (0.92, 0.0)])
def test_throughput_gap_refuses_a_meaningless_threshold_or_measurement(threshold, measured):
    with pytest.raises(ValueError, match="must be"):
        throughput_gap(measured, None, CPU_REF, threshold)


@pytest.mark.parametrize(
    ("per_epoch", "expected"),
    [([100.0], 100.0), ([50.0, 100.0], 100.0), ([10.0, 90.0, 100.0, 300.0], 100.0)],
)
def test_steady_state_skips_the_warm_up_epoch_and_takes_the_median(per_epoch, expected):
    history = [{"samples_per_second": value} for value in per_epoch]
    assert steady_state_samples_per_second(history) == expected


# Training rows of make run's default (TPC-H scale 0.1).
MAKE_RUN_TRAIN_ROWS = 468_644


def test_config_key_names_what_sets_throughput():
    # make run's training set (TPC-H scale 0.1) sizes the default batch to 32768 per rank.
    batch = TrainConfig().batch_for(MAKE_RUN_TRAIN_ROWS, 2)
    model, train = ModelConfig().to_dict(), {**TrainConfig().to_dict(), "batch_size": batch}
    assert config_key(model, train, 2) == "batch32768-embed8-hidden64x32-world2"
    linear = ModelConfig(embedding_dim=4, hidden=()).to_dict()
    assert config_key(linear, {**train, "batch_size": 64}, 8) == "batch64-embed4-hiddennone-world8"
    # Learning rate, seed and epochs do not change samples/s: same key.
    other = TrainConfig(epochs=9, batch_size=batch, learning_rate=1e-4, seed=7).to_dict()
    assert config_key(model, other, 2) == config_key(model, train, 2)


def test_committed_profiles_hold_a_measured_cpu_default_and_unknown_gpus():
    profiles = load_reference_profiles()
    train = {
        **TrainConfig().to_dict(),
        "batch_size": TrainConfig().batch_for(MAKE_RUN_TRAIN_ROWS, 2),
    }
    default = config_key(ModelConfig().to_dict(), train, 2)
    cpu = profiles.lookup("cpu-2cores", default)
    assert cpu.samples_per_second is not None and cpu.samples_per_second > 0
    assert "measured" in cpu.note
    gpus = [r for r in profiles.entries.values() if r.hardware in {"h100", "h200", "gb200"}]
    assert {r.hardware for r in gpus} == {"h100", "h200", "gb200"}
    # No GPU run was made: no GPU number may be claimed.
    assert all(r.samples_per_second is None and r.mfu is None for r in gpus)
    missing = profiles.lookup("cpu-64cores", default)
    assert missing.samples_per_second is None and "reference_profiles.yaml" in missing.note


# --- environment baseline -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "matches"),
    [
        ("3.11", "3.11.7", True),
        ("3.11", "3.11", True),
        ("3.1", "3.11.7", False),
        ("3.11", "3.12.1", False),
        ("2.13.0", "2.13.0+cpu", True),
        ("2.13.0", "2.13.1", False),
        ("12.4", "12.4-1", True),
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", True),
        ("NVIDIA H100", "NVIDIA H100 NVL", False),
        ("550.54.15", "550.54.14", False),
    ],
)
def test_version_matches_exactly_or_by_a_version_prefix(expected, got, matches):
    assert version_matches(expected, got) is matches


H100_PINS = {
    "gpu": "NVIDIA H100 80GB HBM3",
    "driver": "550.54.15",
    "cuda": "12.8",
    "cudnn": "91002",
    "nccl": "2.27.3",
    "torch": "2.13.0",
    "vbios": "96.00.99.00.01",
}
H100_RUN = {
    **H100_PINS,
    "torch": "2.13.0+cu128",
    "cuda": "12.8",
    "host": "node-17",
    "gpu_count": "8",
}


@pytest.mark.parametrize(
    ("changes", "drifted"),
    [
        ({}, []),
        ({"host": "node-18", "numpy": "9.9"}, []),  # not pinned: ignored
        ({"driver": "535.104.05"}, ["driver: expected 550.54.15, got 535.104.05"]),
        (
            {"nccl": "2.21.5", "cudnn": "90100"},
            ["cudnn: expected 91002, got 90100", "nccl: expected 2.27.3, got 2.21.5"],
        ),
        ({"vbios": None}, ["vbios: expected 96.00.99.00.01, got missing"]),
        (
            {"gpu": "NVIDIA H100 PCIe"},
            ["gpu: expected NVIDIA H100 80GB HBM3, got NVIDIA H100 PCIe"],
        ),
    ],
)
def test_drifted_fields_name_field_expected_and_got(changes, drifted):
    environment = {**H100_RUN, **changes}
    environment = {k: v for k, v in environment.items() if v is not None}
    baseline = Baseline("h100", H100_PINS, (), "test")
    assert [str(d) for d in drifted_fields(baseline, environment)] == drifted


def test_environment_verdicts():
    baselines = Baselines(
        load_baselines().path,
        {
            "h100": Baseline("h100", H100_PINS, (), "pinned"),
            "h200": Baseline("h200", {}, ("gpu", "driver"), "no H200 run yet"),
        },
    )
    drifted = check_environment(baselines, "h100", {**H100_RUN, "driver": "535.104.05"})
    assert not drifted.passed
    assert drifted.message == (
        "1 field(s) drifted from the h100 baseline: driver: expected 550.54.15, got 535.104.05"
    )
    assert check_environment(baselines, "h100", H100_RUN).passed
    empty = check_environment(baselines, "h100", {})
    assert not empty.passed and len(empty.drifts) == len(H100_PINS)
    unpinned = check_environment(baselines, "h200", {"gpu": "NVIDIA H200"})
    assert unpinned.passed
    assert "pins no field yet: nothing compared; not pinned yet: gpu, driver" in unpinned.message
    absent = check_environment(baselines, "gpu-nvidia-b200", {"gpu": "NVIDIA B200"})
    assert absent.passed and absent.message == "no baseline for gpu-nvidia-b200 in baseline.yaml"


def test_committed_cpu_baseline_holds_on_this_machine_and_pins_no_host():
    baselines = load_baselines()
    cpu = baselines.get("cpu")
    assert cpu is not None and {"python", "torch"} <= set(cpu.pins)
    assert not {"host", "platform", "cpus"} & set(cpu.pins)  # they differ between CI machines
    verdict = check_environment(baselines, "cpu", fingerprint())
    assert verdict.passed, verdict.message
    for gpu in ("h100", "h200", "gb200"):  # no GPU run made: nothing pinned, nothing invented
        assert baselines.get(gpu).pins == {} and "driver" in baselines.get(gpu).unpinned


# --- cost ---------------------------------------------------------------------------------

PRICES = PriceTable(
    load_prices().path,
    "USD",
    "2026-11-30",
    "test prices",
    {
        "cpu": Price("cpu", "node_hour", 0.10, 0.03),
        "h100": Price("h100", "gpu_hour", 4.0, 2.0),
        "gb200": Price("gb200", "gpu_hour", 8.0, None),
    },
)


@pytest.mark.parametrize(
    ("hardware", "world_size", "nodes", "spot", "per_step", "per_epoch", "per_run", "units"),
    [
        # 1 node at 0.10/h: 3600 s run = 0.10; 36 s epoch = 0.001; 0.36 s step = 0.00001.
        ("cpu", 2, 1, False, 1e-5, 1e-3, 0.10, 1),
        ("cpu", 2, 1, True, 3e-6, 3e-4, 0.03, 1),
        # 8 GPUs at 4.00/GPU-hour.
        ("h100", 8, 1, False, 8 * 4.0 * 1e-4, 8 * 4.0 * 1e-2, 32.0, 8),
        ("h100", 32, 4, True, 32 * 2.0 * 1e-4, 32 * 2.0 * 1e-2, 64.0, 32),
    ],
)
def test_cost_per_step_epoch_and_run(
    hardware, world_size, nodes, spot, per_step, per_epoch, per_run, units
):
    cost = training_cost(
        PRICES,
        hardware,
        step_seconds=0.36,
        epoch_seconds=[30.0, 42.0],  # mean 36 s
        run_seconds=3600.0,
        world_size=world_size,
        nodes=nodes,
        spot=spot,
    )
    assert cost.per_step == pytest.approx(per_step)
    assert cost.per_epoch == pytest.approx(per_epoch)
    assert cost.per_run == pytest.approx(per_run)
    assert cost.billed_units == units and cost.billed_hours == pytest.approx(units)
    assert cost.run_hours == pytest.approx(1.0) and cost.currency == "USD"
    assert "test prices (as of 2026-11-30)" in cost.price_source


@pytest.mark.parametrize(
    ("hardware", "spot", "note"),
    [
        ("gpu-nvidia-b200", False, "no price for gpu-nvidia-b200 in prices.yaml"),
        ("gb200", True, "prices.yaml lists the spot price of gb200 as unknown"),
    ],
)
def test_cost_without_a_price_is_unknown_not_zero(hardware, spot, note):
    cost = training_cost(
        PRICES,
        hardware,
        step_seconds=0.1,
        epoch_seconds=[1.0],
        run_seconds=10.0,
        world_size=8,
        spot=spot,
    )
    assert cost.per_step is cost.per_epoch is cost.per_run is None
    assert cost.note == note and cost.run_hours > 0


def test_history_times_average_steps_and_keep_each_epoch():
    history = [
        {"step_time_ms": 4.0, "epoch_seconds": 1.5},
        {"step_time_ms": 6.0, "epoch_seconds": 2.5},
    ]
    assert history_times(history) == (pytest.approx(0.005), [1.5, 2.5])


def test_committed_prices_are_dated_example_prices_for_every_hardware_type():
    prices = load_prices()
    assert prices.currency == "USD" and prices.as_of
    assert "example" in prices.source
    assert set(prices.prices) == {"cpu", "h100", "h200", "gb200"}
    assert prices.prices["cpu"].unit == "node_hour"
    assert {prices.prices[g].unit for g in ("h100", "h200", "gb200")} == {"gpu_hour"}


# --- chargeback ---------------------------------------------------------------------------


def entry(owner: str, cost: float | None, minute: int, run: str = "r") -> ChargebackEntry:
    return ChargebackEntry(
        owner=owner,
        asset="models/delay_model",
        dagster_run_id=f"{run}-{minute}",
        mlflow_run_id=f"m-{minute}",
        hardware="h100",
        spot=False,
        billed_units=8,
        unit="gpu_hour",
        hours=0.5,
        billed_hours=4.0,
        cost=cost,
        currency="USD",
        price_source="prices.yaml: test (as of 2026-11-30)",
        recorded_at=dt.datetime(2026, 11, 30, 12, minute, tzinfo=dt.UTC).isoformat(),
    )


def test_chargeback_appends_one_file_per_run_and_reads_back_by_owner(tmp_path):
    table = Chargeback(chargeback_root(tmp_path / "lake"))
    assert table.entries() == []
    written = [
        table.append(entry("team:ml-team", 16.0, 2)),
        table.append(entry("team:search", 4.0, 1)),
        table.append(entry("team:ml-team", None, 3)),  # hardware without a price
        table.append(entry("team:ml-team", 0.5, 0)),
    ]
    assert len(set(written)) == 4
    assert all(p.parent == tmp_path / "lake" / "finance" / "chargeback" for p in written)
    assert not list(table.root.glob(".*.tmp")), "no temporary file is left behind"
    ml = table.entries("team:ml-team")
    assert [e.recorded_at[11:16] for e in ml] == ["12:00", "12:02", "12:03"]  # oldest first
    assert ml[1] == entry("team:ml-team", 16.0, 2)
    assert [e.owner for e in table.entries()] == [
        "team:ml-team",
        "team:search",
        *["team:ml-team"] * 2,
    ]
    assert table.total("team:ml-team") == {"USD": pytest.approx(16.5)}
    # Append-only: earlier files are untouched by later appends.
    before = written[0].read_bytes()
    table.append(entry("team:ml-team", 1.0, 4))
    assert written[0].read_bytes() == before


@pytest.mark.parametrize(
    ("owners", "expected"),
    [
        (["team:ml-team"], "team:ml-team"),
        (["ana@example.com", "team:ml-team", "team:infra"], "team:ml-team"),
        (["ana@example.com"], "ana@example.com"),
        ([], "unowned"),
    ],
)
def test_chargeback_owner_prefers_a_team(owners, expected):
    assert chargeback_owner(owners) == expected


# --- broken deploy files ------------------------------------------------------------------

PROFILE_ENTRY = """\
  - hardware: cpu-2cores
    config: batch1024-embed8-hidden64x32-world2
    samples_per_second: {sps}
    mfu: {mfu}
    note: measured
"""


def profiles(sps=1000, mfu=0.4, entries=1, without=None):
    text = "version: 1\nprofiles:\n" + PROFILE_ENTRY.format(sps=sps, mfu=mfu) * entries
    return text.replace(f"    {without}:", "    dropped:") if without else text


def baseline(python="'3.11'", without=None):
    text = f"version: 1\nbaselines:\n  cpu:\n    note: test\n    pins:\n      python: {python}\n"
    return text.replace(f"    {without}:", "    dropped:") if without else text


def prices(unit="gpu_hour", on_demand=4.0, without=None):
    text = (
        'version: 1\ncurrency: USD\nas_of: "2026-11-30"\nsource: test\nprices:\n'
        f"  h100:\n    unit: {unit}\n    on_demand: {on_demand}\n    spot: 2.0\n"
    )
    return text.replace(f"{without}:", "dropped:") if without else text


@pytest.mark.parametrize(
    ("loader", "text", "field", "problem"),
    [
        (
            load_reference_profiles,
            profiles(sps="fast"),
            "profiles[0].samples_per_second",
            "a number or 'unknown'",
        ),
        (load_reference_profiles, profiles(sps=-1), "profiles[0].samples_per_second", "> 0"),
        (load_reference_profiles, profiles(mfu=40), "profiles[0].mfu", "in (0, 1.0]"),
        (load_reference_profiles, profiles(without="note"), "profiles[0].note", "missing"),
        (load_reference_profiles, profiles(entries=2), "profiles[1]", "a second entry for cpu-"),
        (load_reference_profiles, "version: 1\nprofiles: {}\n", "profiles", "a list"),
        (load_baselines, baseline(python="3.10"), "baselines.cpu.pins.python", "quoted strings"),
        (load_baselines, baseline(without="note"), "baselines.cpu.note", "missing"),
        (load_baselines, "version: 2\nbaselines: {}\n", "version", "expected 1; got 2"),
        (load_prices, prices(unit="gpu_minute"), "prices.h100.unit", "one of"),
        (load_prices, prices(on_demand="free"), "prices.h100.on_demand", "a number or 'unknown'"),
        (load_prices, prices(on_demand="true"), "prices.h100.on_demand", "a number"),
        (load_prices, prices(without="currency"), "currency", "missing"),
    ],
)
def test_a_bad_deploy_file_names_the_file_and_the_field(tmp_path, loader, text, field, problem):
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    with pytest.raises(DeployFileError) as raised:
        loader(path)
    assert raised.value.path == path and raised.value.field == field
    assert str(raised.value).startswith(f"{path}: {field}: ")
    assert problem in str(raised.value)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "file not found"),
        ("profiles: [unclosed\n", "not valid YAML"),
        ("- a list\n", "mapping"),
    ],
)
def test_an_unreadable_deploy_file_is_named(tmp_path, text, problem):
    path = tmp_path / "reference_profiles.yaml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(DeployFileError, match=problem) as raised:
        load_reference_profiles(path)
    assert str(raised.value).startswith(str(path))
