-- The finance copy on Redshift (schema utility), from pg_get_ddl / the admin view v_generate_tbl_ddl.
CREATE TABLE utility.customers (
    customer_id   INTEGER      NOT NULL ENCODE az64,
    account_name  VARCHAR(80)  ENCODE lzo,
    email         VARCHAR(120) ENCODE lzo,
    region        VARCHAR(20)  ENCODE lzo,
    tariff_code   VARCHAR(12)  ENCODE lzo,
    opened_on     DATE         ENCODE az64
)
DISTSTYLE ALL;

CREATE TABLE utility.meters (
    meter_id      BIGINT       NOT NULL ENCODE az64,
    customer_id   BIGINT       ENCODE az64,
    meter_kind    VARCHAR(10)  ENCODE lzo,
    installed_on  DATE         ENCODE az64,
    removed_on    DATE         ENCODE az64
)
DISTKEY (customer_id);

CREATE TABLE utility.readings (
    reading_id    INTEGER        NOT NULL ENCODE az64,
    meter_id      INTEGER        NOT NULL ENCODE az64,
    read_at       TIMESTAMP      ENCODE az64,
    register_kwh  DECIMAL(12,3)  ENCODE az64,
    read_type     VARCHAR(1)     ENCODE lzo
)
DISTKEY (meter_id)
SORTKEY (read_at);

CREATE TABLE utility.tariffs (
    tariff_code      VARCHAR(12)   NOT NULL ENCODE lzo,
    tariff_name      VARCHAR(40)   ENCODE lzo,
    unit_rate        DECIMAL(10,5) ENCODE az64,
    standing_charge  DECIMAL(8,4)  ENCODE az64,
    valid_from       DATE          ENCODE az64,
    valid_to         DATE          ENCODE az64
)
DISTSTYLE ALL;
