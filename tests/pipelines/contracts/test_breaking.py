"""The breaking-change classifier and the version-bump guard, as a table of cases."""

from __future__ import annotations

import pytest

from pipelines.contracts import check_version_bump, classify_changes, load_contract


def _prop(document, name):
    return next(p for p in document["schema"][0]["properties"] if p["name"] == name)


def remove_column(d):
    d["schema"][0]["properties"] = [
        p for p in d["schema"][0]["properties"] if p["name"] != "o_clerk"
    ]


def add_optional(d):
    d["schema"][0]["properties"].append({"name": "o_comment", "logicalType": "string"})


def add_required(d):
    d["schema"][0]["properties"].append(
        {"name": "o_comment", "logicalType": "string", "required": True}
    )


def narrow_type(d):
    _prop(d, "o_totalprice")["logicalType"] = "integer"
    _prop(d, "o_totalprice").pop("logicalTypeOptions")


def widen_type(d):
    _prop(d, "o_shippriority")["logicalType"] = "number"


def change_type(d):
    _prop(d, "o_orderdate")["logicalType"] = "timestamp"


def make_required(d):
    _prop(d, "o_shippriority")["required"] = True


def make_optional(d):
    _prop(d, "o_orderdate")["required"] = False


def make_unique(d):
    _prop(d, "o_orderpriority")["unique"] = True


def raise_minimum(d):
    _prop(d, "o_custkey")["logicalTypeOptions"]["minimum"] = 5


def later_first_date(d):
    _prop(d, "o_orderdate")["logicalTypeOptions"]["minimum"] = "1993-01-01"


def later_last_date(d):
    _prop(d, "o_orderdate")["logicalTypeOptions"]["maximum"] = "2030-01-01"


def lower_minimum(d):
    _prop(d, "o_custkey")["logicalTypeOptions"]["minimum"] = 0


def add_maximum(d):
    _prop(d, "o_custkey")["logicalTypeOptions"]["maximum"] = 10**6


def drop_range(d):
    _prop(d, "o_totalprice").pop("logicalTypeOptions")


def exclusive_to_inclusive(d):
    _prop(d, "o_totalprice")["logicalTypeOptions"] = {"minimum": 0, "maximum": 600000}


def shorter_max_length(d):
    _prop(d, "o_orderpriority")["logicalTypeOptions"]["maxLength"] = 10


def drop_enum_value(d):
    _prop(d, "o_orderstatus")["enum"] = [{"value": "F"}, {"value": "O"}]


def add_enum_value(d):
    _prop(d, "o_orderstatus")["enum"].append({"value": "X"})


def drop_enum(d):
    _prop(d, "o_orderstatus").pop("enum")


def add_enum(d):
    _prop(d, "o_clerk")["enum"] = [{"value": "Clerk#1"}]


def change_pattern(d):
    _prop(d, "o_orderpriority")["logicalTypeOptions"]["pattern"] = "^[1-5]-"


def drop_pattern(d):
    _prop(d, "o_orderpriority")["logicalTypeOptions"].pop("pattern")


def stricter_rows(d):
    d["schema"][0]["quality"][0]["mustBeBetween"] = [10, 100]


def looser_rows(d):
    d["schema"][0]["quality"][0]["mustBeBetween"] = [1, 1000]


def change_primary_key(d):
    _prop(d, "o_custkey")["primaryKey"] = True
    _prop(d, "o_custkey")["primaryKeyPosition"] = 2


def add_quality_rule(d):
    _prop(d, "o_shippriority")["quality"] = [{"metric": "nullValues", "mustBe": 0}]


def drop_quality_rule(d):
    d["schema"][0]["quality"].pop(2)


def describe_only(d):
    _prop(d, "o_clerk")["description"] = "who took the order"


CASES = [
    # (edit, [(kind, field suffix, message fragment)])
    (remove_column, [("breaking", "schema[0].properties[6]", "removed")]),
    (
        add_optional,
        [("compatible", "schema[0].properties[10]", "optional column 'o_comment' added")],
    ),
    (add_required, [("breaking", "schema[0].properties[10]", "required column")]),
    (
        narrow_type,
        [
            ("breaking", ".logicalType", "number -> integer"),
            ("compatible", ".logicalTypeOptions", "minimum looser"),
            ("compatible", ".logicalTypeOptions", "maximum looser"),
        ],
    ),
    (widen_type, [("compatible", ".logicalType", "integer -> number (widened)")]),
    (change_type, [("breaking", ".logicalType", "date -> timestamp")]),
    (make_required, [("breaking", ".required", "False -> True")]),
    (make_optional, [("compatible", ".required", "True -> False")]),
    (make_unique, [("breaking", ".unique", "False -> True")]),
    (raise_minimum, [("breaking", ".logicalTypeOptions", "minimum tighter")]),
    (later_first_date, [("breaking", "properties[4].logicalTypeOptions", "minimum tighter")]),
    (later_last_date, [("compatible", "properties[4].logicalTypeOptions", "maximum looser")]),
    (lower_minimum, [("compatible", ".logicalTypeOptions", "minimum looser")]),
    (add_maximum, [("breaking", ".logicalTypeOptions", "maximum tighter")]),
    (
        drop_range,
        [
            ("compatible", ".logicalTypeOptions", "minimum looser"),
            ("compatible", ".logicalTypeOptions", "maximum looser"),
        ],
    ),
    (exclusive_to_inclusive, [("compatible", ".logicalTypeOptions", "minimum looser")]),
    (shorter_max_length, [("breaking", ".logicalTypeOptions", "length maximum tighter")]),
    (drop_enum_value, [("breaking", ".enum", "allowed values")]),
    (add_enum_value, [("compatible", ".enum", "allowed values")]),
    (drop_enum, [("compatible", ".enum", "allowed values")]),
    (add_enum, [("breaking", ".enum", "allowed values")]),
    (change_pattern, [("breaking", ".pattern", "pattern changed")]),
    (drop_pattern, [("compatible", ".pattern", "pattern changed")]),
    (stricter_rows, [("breaking", "rowCount", "row count minimum tighter")]),
    (
        looser_rows,
        [
            ("compatible", "rowCount", "row count minimum looser"),
            ("compatible", "rowCount", "row count maximum looser"),
        ],
    ),
    (
        change_primary_key,
        [
            ("breaking", "primaryKey", "['o_orderkey'] -> ['o_orderkey', 'o_custkey']"),
        ],
    ),
    (add_quality_rule, [("breaking", "properties[7].quality[0]", "quality rule added")]),
    (drop_quality_rule, [("compatible", "schema[0].quality[2]", "quality rule removed")]),
    (describe_only, []),
]


@pytest.mark.parametrize(("edit", "expected"), CASES, ids=[case[0].__name__ for case in CASES])
def test_classify_changes(orders_contract, write_contract, edit, expected):
    new = load_contract(write_contract(edit))
    changes = classify_changes(orders_contract, new)
    assert len(changes) == len(expected), changes
    for kind, suffix, fragment in expected:
        assert any(
            c.kind == kind and suffix in c.field and fragment in c.message for c in changes
        ), (kind, suffix, fragment, changes)


def _versioned(edit, version):
    def apply(document):
        edit(document)
        document["version"] = version

    return apply


@pytest.mark.parametrize(
    ("edit", "version", "error"),
    [
        (remove_column, "1.3.0", "breaking changes need a major version bump from 1.2.0"),
        (remove_column, "2.0.0", None),
        (remove_column, "v2.0.0", None),
        (add_optional, "1.3.0", None),
        (add_optional, "1.2.0", "is not above 1.2.0"),
        (describe_only, "1.2.0", None),
        (raise_minimum, "1.2.1", "minimum tighter"),
        (raise_minimum, "next", "not MAJOR.MINOR.PATCH"),
    ],
)
def test_check_version_bump(orders_contract, write_contract, edit, version, error):
    new = load_contract(write_contract(_versioned(edit, version)))
    errors = check_version_bump(orders_contract, new)
    if error is None:
        assert errors == []
    else:
        (lint_error,) = errors
        assert (lint_error.file, lint_error.field) == (str(new.path), "version")
        assert error in lint_error.message
