"""The exact quotient of two exact numbers, to a scale and with a rounding, on both engines.

A source that divides DECIMALs gives a DECIMAL of its own scale, its last digit rounded its
own way. Neither engine's ``/`` does that: DuckDB divides two DECIMALs (or integers) as
DOUBLEs, Spark to a DECIMAL of its own scale, rounded half up. So the quotient is computed
in integers. Both operands become whole counts of the result's last unit (``a * 10^(scale
+ s_b)`` and ``b * 10^s_b``: exact, as DECIMAL(38, 0)); ``MOD`` of the two is exact on both
engines, and ``A - MOD(A, B)`` is an exact multiple of ``B``. Dividing that by ``B`` is
exact on Spark; on DuckDB a DOUBLE, exact below 2^53 only, so the quotient is corrected
once by the (exact) remainder of that first try, and then checked: ``T * B = A - MOD(A,
B)`` or the statement stops (a guard, never a close value). The remainder then decides the
last digit: truncated, or rounded with halves away from zero or to the even digit (``2 *
|r|`` against ``|B|``).
"""

from __future__ import annotations

from typing import Literal

from sqlglot import exp

from sql.rules.build import cast, clone, guarded, lit

Rounding = Literal["truncate", "half_away", "half_even"]
MAX_DIGITS = 38
WHOLE = f"DECIMAL({MAX_DIGITS}, 0)"


def _power(digits: int) -> exp.Literal:
    return lit(10**digits)


def whole_units(value: exp.Expr, scale: int, shift: int) -> exp.Expr | None:
    """``value`` (an exact number of ``scale`` places) times 10^``shift`` as DECIMAL(38, 0),
    exact (``shift`` >= ``scale``), or None where Spark could not multiply it exactly: a
    product of DECIMAL(p1, s) and an integer of p2 digits has p1 + p2 + 1 digits there, and
    over 38 it gives up places, so ``value`` is first narrowed to what leaves room (a value
    that does not fit stops the statement with an overflow, as a value too large for the
    source's result does)."""
    if shift < scale:
        return None
    if shift == 0:
        return cast(value, WHOLE)
    digits = MAX_DIGITS - 2 - shift
    if digits <= scale:
        return None
    narrowed = exp.Cast(this=clone(value), to=exp.DataType.build(f"DECIMAL({digits}, {scale})"))
    return cast(exp.Mul(this=narrowed, expression=_power(shift)), WHOLE)


def _opposite_signs(left: exp.Expr, right: exp.Expr) -> exp.Expr:
    zero = lit(0)
    return exp.Or(
        this=exp.And(
            this=exp.LT(this=clone(left), expression=zero),
            expression=exp.GT(this=clone(right), expression=zero.copy()),
        ),
        expression=exp.And(
            this=exp.GT(this=clone(left), expression=zero.copy()),
            expression=exp.LT(this=clone(right), expression=zero.copy()),
        ),
    )


def integer_quotient(
    dividend: exp.Expr, divisor: exp.Expr, rounding: Rounding, rule_id: str, at: exp.Expr
) -> exp.Expr:
    """``dividend / divisor`` (both whole DECIMAL(38, 0) values) to a whole number, truncated
    or rounded, as DECIMAL(38, 0); guarded to stop the statement where the engine could not
    divide exactly (see the module's docstring)."""
    remainder = exp.Mod(this=clone(dividend), expression=clone(divisor))
    multiple = exp.Paren(this=exp.Sub(this=clone(dividend), expression=remainder))
    first = cast(exp.Div(this=multiple.copy(), expression=clone(divisor)), WHOLE)
    off = exp.Paren(
        this=exp.Sub(
            this=multiple.copy(), expression=exp.Mul(this=first.copy(), expression=clone(divisor))
        )
    )
    truncated = exp.Paren(
        this=exp.Add(
            this=first, expression=cast(exp.Div(this=off, expression=clone(divisor)), WHOLE)
        )
    )
    exact = exp.EQ(
        this=exp.Mul(this=truncated.copy(), expression=clone(divisor)), expression=multiple.copy()
    )
    value: exp.Expr = truncated
    if rounding != "truncate":
        twice = exp.Mul(this=lit(2), expression=exp.Abs(this=remainder.copy()))
        whole = exp.Abs(this=clone(divisor))
        if rounding == "half_away":
            up: exp.Expr = exp.GTE(this=twice, expression=whole)
        else:
            # The quotient is odd where the multiple of B is not one of 2 * B.
            double = exp.Mul(this=lit(2), expression=clone(divisor))
            odd = exp.NEQ(this=exp.Mod(this=multiple.copy(), expression=double), expression=lit(0))
            up = exp.Or(
                this=exp.GT(this=twice, expression=whole),
                expression=exp.Paren(
                    this=exp.And(
                        this=exp.EQ(this=twice.copy(), expression=whole.copy()), expression=odd
                    )
                ),
            )
        step = exp.Case(
            ifs=[
                exp.If(
                    this=exp.And(
                        this=exp.Paren(this=up),
                        expression=exp.Paren(this=_opposite_signs(remainder, divisor)),
                    ),
                    true=lit(-1),
                ),
                exp.If(this=up.copy(), true=lit(1)),
            ],
            default=lit(0),
        )
        value = cast(exp.Add(this=truncated.copy(), expression=step), WHOLE)
    return guarded(
        value,
        exp.Not(this=exact),
        rule_id,
        "the exact quotient is beyond what this engine divides exactly",
        at=at,
    )


def scaled(units: exp.Expr, scale: int) -> exp.Expr | None:
    """``units`` (a whole DECIMAL(38, 0) count of 10^-scale) as DECIMAL(38, ``scale``): a
    product with 10^-scale, exact on both engines once ``units`` leaves Spark room for it
    (a count that does not fit in 37 - scale digits stops with an overflow); None for a
    scale over 36."""
    if scale == 0:
        return cast(units, WHOLE)
    if scale > MAX_DIGITS - 2:
        return None
    narrowed = exp.Cast(
        this=clone(units), to=exp.DataType.build(f"DECIMAL({MAX_DIGITS - 1 - scale}, 0)")
    )
    step = exp.Literal.number("0." + "0" * (scale - 1) + "1")
    return cast(exp.Mul(this=narrowed, expression=step), f"DECIMAL({MAX_DIGITS}, {scale})")


def exact_quotient(
    dividend: exp.Expr,
    dividend_scale: int,
    divisor: exp.Expr,
    divisor_scale: int,
    scale: int,
    rounding: Rounding,
    rule_id: str,
    at: exp.Expr,
) -> exp.Expr | None:
    """``dividend / divisor`` as DECIMAL(38, ``scale``), its last digit truncated or rounded
    as ``rounding`` says, exact on both engines (or the statement stops); None where the
    operands' scales leave no exact form (too many digits for Spark's products, a negative
    ``scale``).

    The quotient in units of 10^-scale is ``a * 10^shift / (b * 10^(shift - scale))``, both
    whole: ``shift`` is the larger of the dividend's scale and ``scale`` plus the divisor's
    (a quotient with fewer places than the dividend's scale scales the divisor up instead).
    :func:`whole_units` keeps the whole dividend under 10^36 (a larger one stops the
    statement), which sql/rules/division.py's DIV-ROUNDED relies on."""
    if scale < 0:
        return None
    shift = max(dividend_scale, scale + divisor_scale)
    numerator = whole_units(dividend, dividend_scale, shift)
    denominator = whole_units(divisor, divisor_scale, shift - scale)
    if numerator is None or denominator is None:
        return None
    units = integer_quotient(numerator, denominator, rounding, rule_id, at)
    return scaled(units, scale)
