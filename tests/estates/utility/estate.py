"""Northfield Water & Power: a utility's metering and billing warehouse, as a migration team
receives it. Nothing in plumbline knows this business; the test that migrates it
(``tests/estates/test_utility_estate.py``) uses only what a new user has.

The legacy estate ran on three warehouses that each held the same four tables:

- Oracle 19c (schema ``UTIL``): the metering system. Its queries are a chain: the AMI detail
  (``read_intervals``), a monthly summary over it (``monthly_usage``), and the billing report
  over that (``billing_report``), each reading the previous one's output by its legacy name.
- BigQuery (dataset ``utility``): the customer-service analytics copy.
- Redshift (schema ``utility``): the finance copy.

The sources, as they reach the new platform:

- ``customers``: the billing database's live table, in PostgreSQL (``utility.customers``);
- ``meters`` and ``tariffs``: CSV exports (``COPY ... TO ... CSV HEADER``: NULL an empty
  field, an empty string ``""``);
- ``readings``: the head-end's Parquet export, in three parts, with Oracle's ``NUMBER(10)``
  written as 32-bit integers and its ``DATE`` (which holds a time of day) as timestamps.

The DDL of each warehouse (``ddl/<dialect>.sql``) declares what the legacy types were, so the
exports differ from it as real exports do: Oracle ``NUMBER(10)`` became INTEGER or BIGINT,
Oracle ``DATE`` became DATE where every value is a midnight and TIMESTAMP where it holds
times, BigQuery ``INT64`` became INTEGER and its bare ``NUMERIC`` a narrower DECIMAL.
Redshift's DDL agrees with the exports.

The legacy warehouses' own output of each query (the snapshots) is computed by PostgreSQL
running a hand-written PostgreSQL version of the query (``postgres/<name>.sql``) over the
same rows, never by plumbline's translation: reconciliation compares two independent
implementations. The Oracle outputs are exported as CSV (an SQLcl spool), the BigQuery ones
as Parquet (``EXPORT DATA``), the Redshift ones as CSV (``UNLOAD ... CSV HEADER``).

The rows come from :func:`generate`, seeded: a few thousand readings with the mess real
data has (NULLs, failed reads, reads at midnight and at any minute of the day, empty
strings and stray spaces in e-mail addresses, regions and tariff codes in mixed case, a
tariff code no tariff has, meter kinds left empty, reading ids a few hundred below the INTEGER
bound).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import psycopg
import pyarrow as pa
import pyarrow.parquet as pq
from psycopg import sql

HERE = Path(__file__).parent
SEED = 41
SCHEMA = "utility"
# Oracle NUMBER(10) ids up to a few hundred below 2**31 - 1: they fit a 32-bit INTEGER, barely.
FIRST_READING_ID = 2_147_479_000
INTEGER_MAX = 2**31 - 1

POSTGRES_DDL = """\
CREATE SCHEMA utility;
CREATE TABLE utility.customers (customer_id integer NOT NULL, account_name varchar(80),
  email varchar(120), region varchar(20), tariff_code varchar(12), opened_on date);
CREATE TABLE utility.meters (meter_id bigint NOT NULL, customer_id bigint,
  meter_kind varchar(10), installed_on date, removed_on date);
CREATE TABLE utility.readings (reading_id integer NOT NULL, meter_id integer NOT NULL,
  read_at timestamp(0), register_kwh numeric(12,3), read_type varchar(1));
CREATE TABLE utility.tariffs (tariff_code varchar(12) NOT NULL, tariff_name varchar(40),
  unit_rate numeric(10,5), standing_charge numeric(8,4), valid_from date, valid_to date)
"""

# The head-end's Parquet export: Oracle NUMBER(10) as int32, DATE as a timestamp.
READINGS_SCHEMA = pa.schema(
    [
        ("reading_id", pa.int32()),
        ("meter_id", pa.int32()),
        ("read_at", pa.timestamp("us")),
        ("register_kwh", pa.decimal128(12, 3)),
        ("read_type", pa.string()),
    ]
)
READINGS_PARTS = 3


@dataclass(frozen=True)
class Query:
    """One legacy query of the estate: its dialect, the key its rows are matched by, and how
    the legacy warehouse exported its output."""

    dialect: str
    key: tuple[str, ...]
    snapshot: str  # "csv" or "parquet"
    tolerance: dict[str, float] | None = None

    def legacy_sql(self, name: str) -> Path:
        return HERE / "legacy" / self.dialect / f"{name}.sql"

    def postgres_sql(self, name: str) -> Path:
        return HERE / "postgres" / f"{name}.sql"


# In chain order: read_intervals -> monthly_usage -> billing_report.
QUERIES: dict[str, Query] = {
    "read_intervals": Query("oracle", ("reading_id",), "csv"),
    "monthly_usage": Query("oracle", ("customer_id", "usage_month"), "csv"),
    "billing_report": Query("oracle", ("region", "usage_month"), "csv"),
    "customer_contacts": Query("bigquery", ("customer_id",), "parquet"),
    "weekly_read_coverage": Query(
        "bigquery", ("meter_kind", "week_start"), "parquet", {"mean_read_hour": 1e-12}
    ),
    "estimated_reads": Query("redshift", ("meter_id",), "csv"),
    "tariff_calendar": Query("redshift", ("tariff_code", "valid_from"), "csv"),
}
CHAIN = ("read_intervals", "monthly_usage", "billing_report")
# Each query's sources, as its SQL reads them (directly or through the chain).
READS = {
    "read_intervals": {"readings", "meters"},
    "monthly_usage": {"readings", "meters"},
    "billing_report": {"readings", "meters", "customers", "tariffs"},
    "customer_contacts": {"customers", "meters"},
    "weekly_read_coverage": {"readings", "meters"},
    "estimated_reads": {"readings", "meters"},
    "tariff_calendar": {"tariffs"},
}
DIALECTS = ("oracle", "bigquery", "redshift")

# A corrected meter read, as the head-end re-exports it: an interior read of a customer
# without a region, whose interval ends in January and the next one starts in February. The
# two intervals, their months and the "Unassigned" region's totals change, and stay inside
# every range the drafted contracts observed (none of them is a minimum or a maximum).
CORRECTED_READING = 2_147_479_514
CORRECTION_KWH = Decimal("0.500")
# A customer who gives a new e-mail address (the same customer, to keep the story short).
NEW_EMAIL = (100_682, "Accounts@Quarry-Motors.example ")


# -- the rows --------------------------------------------------------------------------------

FIRST_NAMES = ["Harbour", "Elm", "Castle", "Mill", "Northgate", "Quarry", "Riverside", "Kiln"]
BUSINESSES = ["Bakery", "Dental", "Motors", "Farm", "Residence", "Flats", "Brewery", "Surgery"]
REGIONS = ["North", "NORTH", "north", "South", "south", "East", "West", "WEST", None]
TARIFF_CODES = ["RES-STD", "res-std", "RES-E7", "Res-E7", "RES-EV", "SME-FLEX", "sme-flex"]
# "" is a kind nobody filled in: the CSV export writes it "", distinct from NULL (an empty
# field).
METER_KINDS = ["ELEC", "Elec", "elec", "GAS", "Gas", "WATER", "water", "", None]
METER_KIND_WEIGHTS = [20, 10, 10, 15, 5, 12, 8, 3, 2]
TARIFFS = [
    ("RES-STD", "Residential standard", "0.24310", "0.5012", date(2023, 1, 1), date(2024, 4, 1)),
    ("RES-STD", "Residential standard", "0.22870", "0.5298", date(2024, 4, 1), None),
    ("RES-E7", "Economy 7", "0.19950", "0.4730", date(2023, 1, 1), None),
    ("RES-EV", "EV overnight", "0.09500", "0.5500", date(2023, 10, 1), None),
    ("SME-FLEX", "Small business, flexible", "0.27125", "0.8800", date(2023, 1, 1), date(2024, 2, 1)),
    ("SME-FLEX", "Small business, flexible", "0.26480", "0.9100", date(2024, 2, 1), date(2024, 5, 1)),
    ("SME-FLEX", "small business, flexible", "0.25990", "0.9300", date(2024, 5, 1), None),
    ("IND-HV", "Industrial high voltage", "0.15500", "4.2500", date(2023, 6, 1), None),
]  # fmt: skip
FIRST_READ = datetime(2024, 1, 1)
LAST_READ = datetime(2024, 6, 30, 23, 59)


def generate(seed: int = SEED) -> dict[str, list[tuple]]:
    """The four source tables' rows, the same for the same seed."""
    rng = random.Random(seed)
    customers = []
    for index in range(110):
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(BUSINESSES)}"
        name = rng.choice([name, name.upper(), name.lower(), f" {name}  "])
        handle = name.strip().lower().replace(" ", ".")
        email = rng.choices(
            [None, "", f"{handle}@example.com", f"  {handle.title()}@Example.COM "],
            weights=[12, 8, 60, 20],
        )[0]
        tariff = rng.choices([*TARIFF_CODES, "LEGACY-01", None], weights=[*[12] * 7, 3, 4])[0]
        customers.append(
            (
                100_003 + 7 * index,
                name,
                email,
                rng.choice(REGIONS),
                tariff,
                date(2012, 1, 1) + timedelta(days=rng.randrange(4300)),
            )
        )
    meters = []
    readings = []
    for customer in customers:
        for _ in range(rng.choice([1, 1, 1, 2])):
            kind = rng.choices(METER_KINDS, weights=METER_KIND_WEIGHTS)[0]
            installed = min(customer[5] + timedelta(days=rng.randrange(60)), date(2023, 12, 1))
            removed = (
                date(2024, 3, 1) + timedelta(days=rng.randrange(90)) if rng.random() < 0.1 else None
            )
            meter_id = 7_000_001 + len(meters)
            meters.append((meter_id, customer[0], kind, installed, removed))
            readings.extend(_reads(rng, meter_id, removed))
            if removed is not None:  # the replacement meter, read from the next day
                replacement = 7_000_001 + len(meters)
                meters.append((replacement, customer[0], kind, removed + timedelta(days=1), None))
                readings.extend(_reads(rng, replacement, None, start=removed + timedelta(days=1)))
    readings.sort(key=lambda r: (r[1], r[0]))
    numbered = [(FIRST_READING_ID + i, *r) for i, r in enumerate(readings)]
    assert numbered[-1][0] <= INTEGER_MAX, len(numbered)
    tariffs = [
        (code, name, Decimal(rate), Decimal(charge), start, end)
        for code, name, rate, charge, start, end in TARIFFS
    ]
    return {"customers": customers, "meters": meters, "readings": numbered, "tariffs": tariffs}


def _reads(
    rng: random.Random, meter_id: int, removed: date | None, start: date | None = None
) -> list[tuple]:
    """A meter's register reads, every 5 to 9 days at a whole minute of the day (one in ten
    at midnight), without the reading id: (meter_id, read_at, register_kwh, read_type)."""
    day = datetime.combine(start, datetime.min.time()) if start else FIRST_READ
    day += timedelta(days=rng.randrange(5))
    end = datetime.combine(removed, datetime.min.time()) if removed else LAST_READ
    register = Decimal(rng.randrange(1_000_000, 50_000_000)) / 1000
    rows = []
    while day <= end:
        at = day if rng.random() < 0.1 else day + timedelta(minutes=rng.randrange(24 * 60))
        register += Decimal(rng.randrange(20_000, 300_000)) / 1000
        value = None if rng.random() < 0.04 else register
        kind = rng.choices(["A", "E", "a", None], weights=[70, 20, 5, 5])[0]
        rows.append((meter_id, at, value, kind))
        day += timedelta(days=rng.randrange(5, 10))
    return rows


# -- the legacy warehouse (PostgreSQL) and its exports ---------------------------------------


def load(connection: psycopg.Connection, rows: dict[str, list[tuple]]) -> None:
    """Create the schema and copy the rows in."""
    for statement in POSTGRES_DDL.split(";"):
        connection.execute(statement)
    for table, table_rows in rows.items():
        copy = sql.SQL("COPY {} FROM STDIN").format(sql.Identifier(SCHEMA, table))
        with connection.cursor() as cursor, cursor.copy(copy) as writer:
            for row in table_rows:
                writer.write_row(row)


def export_csv(connection: psycopg.Connection, query: sql.Composable, path: Path) -> None:
    """What the legacy export tool writes: CSV with a header, NULL as an empty field and an
    empty string as "" (``COPY ... TO ... WITH CSV HEADER``)."""
    copy = sql.SQL("COPY ({}) TO STDOUT WITH CSV HEADER").format(query)
    with connection.cursor() as cursor, path.open("wb") as out, cursor.copy(copy) as reader:
        for chunk in reader:
            out.write(chunk)


def _table(name: str) -> sql.Composable:
    return sql.SQL("SELECT * FROM {} ORDER BY 1, 2").format(sql.Identifier(SCHEMA, name))


def export_sources(connection: psycopg.Connection, project: Path) -> None:
    """The exported sources under ``project/sources``: meters and tariffs as CSV, readings as
    Parquet parts (customers stays in the database)."""
    sources = project / "sources"
    for name in ("meters", "tariffs"):
        export_csv(connection, _table(name), sources / f"{name}.csv")
    folder = sources / "readings"
    folder.mkdir(parents=True, exist_ok=True)
    rows = connection.execute(_table("readings")).fetchall()
    size = len(rows) // READINGS_PARTS + 1
    for part in range(READINGS_PARTS):
        chunk = rows[part * size : (part + 1) * size]
        columns = [
            pa.array(column, field.type)
            for column, field in zip(zip(*chunk, strict=True), READINGS_SCHEMA, strict=True)
        ]
        pq.write_table(pa.table(columns, schema=READINGS_SCHEMA), folder / f"part-{part}.parquet")


def export_snapshots(connection: psycopg.Connection, project: Path) -> None:
    """Each query's legacy output under ``project/snapshots``: the PostgreSQL version of the
    query run over the legacy rows, the chain's intermediate tables materialized as the
    legacy warehouse held them."""
    for name in CHAIN[:-1]:
        connection.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(SCHEMA, name)))
    for name, query in QUERIES.items():
        text = sql.SQL(query.postgres_sql(name).read_text())  # type: ignore[arg-type]
        if query.snapshot == "csv":
            export_csv(connection, text, project / "snapshots" / f"{name}.csv")
        else:
            with connection.cursor() as cursor:
                cursor.execute(text)
                names = [column.name for column in cursor.description]
                table = pa.Table.from_pylist([dict(zip(names, row, strict=True)) for row in cursor])
            pq.write_table(table, project / "snapshots" / f"{name}.parquet")
        if name in CHAIN[:-1]:
            connection.execute(
                sql.SQL("CREATE TABLE {} AS ").format(sql.Identifier(SCHEMA, name)) + text
            )


def correct_reading(connection: psycopg.Connection, project: Path) -> None:
    """The head-end corrects one register read: the readings export is written again."""
    connection.execute(
        "UPDATE utility.readings SET register_kwh = register_kwh + %s WHERE reading_id = %s",
        (CORRECTION_KWH, CORRECTED_READING),
    )
    export_sources(connection, project)


def change_email(connection: psycopg.Connection) -> None:
    """A customer's new e-mail address, in the live billing database."""
    customer, email = NEW_EMAIL
    connection.execute(
        "UPDATE utility.customers SET email = %s WHERE customer_id = %s", (email, customer)
    )
