-- The analytics copy on BigQuery (dataset utility), from INFORMATION_SCHEMA.TABLES.ddl.
CREATE TABLE utility.customers (
  customer_id INT64 NOT NULL,
  account_name STRING,
  email STRING,
  region STRING,
  tariff_code STRING,
  opened_on DATE
);
CREATE TABLE utility.meters (
  meter_id INT64 NOT NULL,
  customer_id INT64,
  meter_kind STRING,
  installed_on DATE,
  removed_on DATE
);
CREATE TABLE utility.readings (
  reading_id INT64 NOT NULL,
  meter_id INT64 NOT NULL,
  read_at DATETIME,
  register_kwh NUMERIC,
  read_type STRING
);
CREATE TABLE utility.tariffs (
  tariff_code STRING NOT NULL,
  tariff_name STRING,
  unit_rate NUMERIC,
  standing_charge NUMERIC,
  valid_from DATE,
  valid_to DATE
);
