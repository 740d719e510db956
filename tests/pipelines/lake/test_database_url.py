"""A database URL is checked before a driver sees it, and every driver message is redacted of
its user information in each form a driver echoes it (issue 44: libpq's own errors showed
pieces of a password holding an unencoded ``@``, ``/`` or ``?``). The same URLs against a real
server, and through Dagster's event log: tests/pipelines/lake/test_sources.py."""

from __future__ import annotations

import urllib.parse

import pytest

from pipelines.lake.database_url import (
    DatabaseUrlError,
    parse_database_url,
    redact,
    secret_forms,
)

HOST = "127.0.0.1:5432/shop"


def url_with(password: str) -> str:
    return f"postgresql://shop:{password}@{HOST}"


@pytest.mark.parametrize(
    ("password", "refusal"),
    [
        ("Sign@SignSecret_q4", "holds an unencoded '@'"),
        ("Slash/1234", "holds an unencoded '/'"),
        ("Secret?Query_q7", "holds an unencoded '?'"),
        ("Hash#Frag_q9", "holds an unencoded '#'"),
        ("Pct%zzSecret", "holds a '%' that starts no %XX escape"),
        ("Pct%4", "holds a '%' that starts no %XX escape"),
    ],
)
def test_a_password_libpq_would_read_otherwise_is_refused_with_a_hint(password, refusal):
    with pytest.raises(DatabaseUrlError) as refused:
        parse_database_url(url_with(password), connect_timeout=30)
    message = str(refused.value)
    assert refusal in message and "percent-encode" in message and "\n" not in message
    for piece in secret_forms([password]):
        assert piece not in message


@pytest.mark.parametrize(
    "password", ["Sign@Secret", "Slash/1234", "Q?uery", "H#ash", "P%ct", "C:olon"]
)
def test_the_percent_encoded_password_is_accepted_and_reaches_the_driver_as_written(password):
    encoded = urllib.parse.quote(password, safe="")
    checked = parse_database_url(url_with(encoded), connect_timeout=30)
    assert checked.url == f"{url_with(encoded)}?connect_timeout=30"
    assert password in checked.secrets and encoded in checked.secrets


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("mysql://u:p@h/db", "does not hold a postgresql:// URL"),
        ("hunter2", "does not hold a postgresql:// URL"),
        ("postgresql://", "does not hold a postgresql:// URL"),
        ("postgresql://u:p@h/db#frag", "holds a '#'"),
    ],
)
def test_what_is_not_a_postgresql_url_is_refused_without_showing_it(text, problem):
    with pytest.raises(DatabaseUrlError) as refused:
        parse_database_url(text, connect_timeout=30)
    assert problem in str(refused.value)
    assert "hunter2" not in str(refused.value) and "mysql" not in str(refused.value)


def test_a_given_connect_timeout_is_kept_and_query_passwords_are_secrets():
    checked = parse_database_url(
        "postgresql://h/db?connect_timeout=5&password=Qu%2Fery_pw", connect_timeout=30
    )
    assert checked.url == "postgresql://h/db?connect_timeout=5&password=Qu%2Fery_pw"
    assert {"Qu%2Fery_pw", "Qu/ery_pw", "ery_pw"} <= set(checked.secrets)
    assert repr(checked) == "DatabaseUrl(<not shown>)"


@pytest.mark.parametrize(
    ("userinfo", "message", "shown"),
    [
        # The messages libpq and ADBC gave for the URLs of issue 44, before they were refused.
        (
            "shop:Sign@SignSecret_q4",
            'could not translate host name "SignSecret_q4@127.0.0.1" to address',
            'could not translate host name "***@127.0.0.1" to address',
        ),
        (
            "shop:Slash1234/x",
            'invalid integer value "Slash1234" for connection option "port"',
            'invalid integer value "***" for connection option "port"',
        ),
        (
            "app_user:Secret?SecretQuery_q7",
            'invalid URI query parameter: "SecretQuery_q7@127.0.0.1/shop"',
            'invalid URI query parameter: "***@127.0.0.1/shop"',
        ),
        (
            "shop:S%40cret%2Fpw",
            'password authentication failed for user "shop" (S@cret/pw)',
            'password authentication failed for user "***" (***)',
        ),
        (
            "shop:Colon:Tail_q1",
            'role "Colon" does not exist; Tail_q1',
            'role "***" does not exist; ***',
        ),
    ],
    ids=["at", "slash", "question-mark", "percent-decoded", "colon"],
)
def test_every_form_of_the_user_information_is_redacted(userinfo, message, shown):
    secrets = secret_forms([userinfo, userinfo.partition(":")[2]])
    assert redact(message, secrets) == shown


def test_the_driver_message_loses_its_status_prefix_and_every_secret():
    checked = parse_database_url(url_with("Pl4mb-s3cret"), connect_timeout=30)
    error = RuntimeError('IO: [libpq] FATAL:  database "Pl4mb-s3cret"\ndoes not exist')
    assert checked.driver_message(error) == 'FATAL: database "***" does not exist'
