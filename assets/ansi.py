"""``ansi/<name>``: each legacy SQL file translated to ANSI SQL, one asset per file.

The assets are drawn from what each file defines (``LegacySql``: parsed, never translated,
when the code location loads); a file is translated when its asset runs.
"""

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from assets.legacy import legacy_key
from assets.metadata import code_references, lineage_metadata
from pipelines.instance import DATA_VERSION_TAG
from pipelines.lake.catalog import published_columns
from pipelines.probes import INITIAL_DATA_VERSION, Facts, Rerun, attach_probe, provenance
from pipelines.resources import AnsiStoreResource, LakeResource
from pipelines.settings import shown_path
from pipelines.step_usage import StepUsage
from pipelines.translation.store import (
    LegacySql,
    SourceDependencies,
    StoredTranslation,
    StoreError,
    stored_translations,
    translate_to_store,
)
from pipelines.warehouse.lineage_view import (
    LineageRow,
    lineage_rows,
    markdown_text,
)
from sql.catalog import Catalog, CatalogError
from sql.diagnostics import TranslationError
from sql.paths import REPOSITORY_ROOT
from sql.rules import load_all
from sql.templating import TemplateValue
from sql.translate import TRANSLATOR_VERSION

ANSI_ZONE = "ansi"


def rules_markdown(rule_ids: Sequence[str]) -> str:
    """The rules a translation applied, as a Markdown table of each rule's id and what it
    does (the catalog's description, as docs/translation-rules.md shows it)."""
    if not rule_ids:
        # sqlglot's own dialect mappings (NVL -> COALESCE) are not rules of the catalog.
        return "No rule of the catalog applied."
    catalog = load_all()
    lines = ["| rule | what it does |", "| --- | --- |"]
    for rule_id in rule_ids:
        rule = catalog.get(rule_id)
        what = markdown_text(rule.description) if rule else "(not in the rule catalog)"
        lines.append(f"| {markdown_text(rule_id)} | {what} |")
    return "\n".join(lines) + "\n"


def _markdown_list(items: Sequence[str]) -> str:
    return "\n".join(f"- {markdown_text(item)}" for item in items) or "none"


def translation_lineage(stored: StoredTranslation, home: str | None = None) -> list[LineageRow]:
    """Each column of ``stored``: its expression and line in the legacy file, and the lake
    columns it reads (the translation's own lineage)."""
    source = Path(stored.source_path)
    source = source if source.is_absolute() else REPOSITORY_ROOT / source
    # A Jinja template is not SQL to find a column's lines in: its columns show their
    # sources, without the lines.
    templated = stored.rendered_sha256 is not None
    return lineage_rows(
        stored.columns,
        stored.column_lineage,
        "" if templated else source.read_text(),
        stored.dialect,
        shown_path(source, home),
        table=stored.name,
    )


def _metadata(stored: StoredTranslation, home: str | None = None) -> dict[str, object]:
    return {
        "dialect": dg.MetadataValue.text(stored.dialect),
        "source_path": dg.MetadataValue.path(shown_path(stored.source_path, home)),
        "source_line": dg.MetadataValue.int(stored.source_line),
        "source_sha256": dg.MetadataValue.text(stored.source_sha256),
        "ansi_path": dg.MetadataValue.path(shown_path(stored.ansi_path, home)),
        "ansi_sha256": dg.MetadataValue.text(stored.ansi_sha256),
        "ansi_sql": dg.MetadataValue.md(f"```sql\n{stored.ansi_sql}```"),
        "rules_applied": dg.MetadataValue.md(rules_markdown(stored.rules_applied)),
        # what the SQL asks of an engine beyond SQL:2016 (sql/portable.py)
        "portable_functions": dg.MetadataValue.text(", ".join(stored.portable_functions) or "none"),
        # the rules whose run-time guards stop the build on a row they cannot translate exactly
        "guards": dg.MetadataValue.text(", ".join(stored.guards) or "none"),
        "warnings": dg.MetadataValue.md(
            "\n".join(f"- `{line}`" for line in stored.diagnostics) or "none"
        ),
        "source_tables": dg.MetadataValue.md(
            _markdown_list([t.replace(".", "/", 1) for t in stored.source_tables])
        ),
        "translator_version": dg.MetadataValue.text(stored.translator_version),
        "reused_stored_translation": dg.MetadataValue.bool(stored.reused),
        **lineage_metadata(translation_lineage(stored, home)),
        **_template_metadata(stored),
    }


def _template_metadata(stored: StoredTranslation) -> dict[str, object]:
    """What a Jinja template was rendered with and to; nothing for plain SQL."""
    if stored.rendered_sha256 is None:
        return {}
    return {
        "template_vars": dg.MetadataValue.json(stored.template_vars or {}),
        "rendered_sha256": dg.MetadataValue.text(stored.rendered_sha256),
    }


def ansi_asset(
    legacy: SourceDependencies,
    variables: Mapping[str, TemplateValue] | None = None,
    project: LegacySql | None = None,
) -> dg.AssetsDefinition:
    """One asset per table the legacy file defines (a multi-asset when a script defines
    several), all from one translation of the file (a Jinja template rendered with the
    project's ``variables`` first). In a ``project`` whose other files' tables it reads,
    it depends on those tables and is translated against their translations' columns."""
    source = legacy.source
    upstream = sorted(project.upstream(legacy)) if project is not None else []
    specs = [
        dg.AssetSpec(
            key=[ANSI_ZONE, name],
            # The legacy file it translates, and the tables of other legacy files it reads:
            # their columns type its translation.
            deps=[legacy_key(source), *(dg.AssetKey(lake.split(".", 1)) for lake in upstream)],
            group_name=ANSI_ZONE,
            kinds={"sql", source.dialect},
            description=(
                f"`{source.path.parent.name}/{source.path.name}` ({source.dialect}) "
                + (f"table `{name}` " if len(legacy.names) > 1 else "")
                + "translated to ANSI SQL. Promise: the same meaning as the legacy SQL, or the "
                "asset fails with `file:line:col` diagnostics; the rules applied and the "
                "assumptions a reviewer must accept are in the metadata and the audit trail."
            ),
            code_version=TRANSLATOR_VERSION,
            tags={"plumbline/dialect": source.dialect},
            metadata={
                "source_path": dg.MetadataValue.path(shown_path(source.path)),
                # "Source code" opens the legacy file (the component's defs.yaml is not it).
                **code_references(source.path),
            },
        )
        for name in legacy.names
    ]

    @dg.multi_asset(
        specs=specs,
        name=re.sub(r"\W", "_", f"ansi_{source.dialect}_{source.name}"),
        can_subset=False,
    )
    def _ansi(context: dg.AssetExecutionContext, ansi_store: AnsiStoreResource, lake: LakeResource):
        usage = StepUsage.start()
        try:
            catalog = _catalog(legacy, project, ansi_store, lake)
            stored = translate_to_store(
                source,
                ansi_store.path(),
                catalog,
                expected=legacy.names,
                variables=variables,
                budget=project.budget if project is not None else None,
            )
        except CatalogError as exc:
            raise dg.Failure(description=str(exc)) from exc
        except TranslationError as exc:
            # Fails this file's assets only; the last good translations stay where they were.
            raise dg.Failure(
                description=f"{source.path} was refused:\n{exc}",
                metadata={"diagnostics": dg.MetadataValue.md(f"```\n{exc}\n```")},
            ) from exc
        except StoreError as exc:
            raise dg.Failure(description=str(exc)) from exc
        for table in stored:
            if not table.reused:
                # A kept translation says so in its metadata (reused_stored_translation): a
                # rerun writes no log event per legacy file.
                context.log.info(
                    f"{source.path.name} -> {table.name}: translated"
                    f" ({len(table.rules_applied)} rules, {len(table.diagnostics)} diagnostics)"
                )
            yield dg.MaterializeResult(
                asset_key=[ANSI_ZONE, table.name],
                metadata={**_metadata(table, lake.home or None), **usage.metadata()},
                data_version=dg.DataVersion(table.data_version),
            )

    # What `plumbline run` asks before it starts a run (pipelines/probes.py).
    deps = tuple(dict.fromkeys(dep.asset_key for spec in specs for dep in spec.deps))
    return attach_probe(_ansi, TranslationProbe(legacy, variables, project, deps))


def _catalog(
    legacy: SourceDependencies,
    project: LegacySql | None,
    ansi_store: AnsiStoreResource,
    lake: LakeResource,
) -> Catalog:
    """The catalog ``legacy`` is translated against: in a ``project`` whose other files'
    tables it reads, with those tables' columns as their translations give them."""
    catalog = ansi_store.catalog()
    if project is not None:
        catalog = project.catalog_for(
            legacy.names[0],
            catalog,
            ansi_store.path(),
            published=functools.partial(published_columns, lake.lake()),
        )
    return catalog


@dataclass(frozen=True)
class TranslationProbe:
    """The question a translation's step answers first (whether the store holds the
    translations of the file as it is now, against the catalog as it is now), askable
    before a run: ``plumbline run`` starts no step for a file whose translations are kept
    and are what Dagster last recorded of its assets, made from the inputs' data versions
    recorded now (pipelines/probes.py)."""

    legacy: SourceDependencies
    variables: Mapping[str, TemplateValue] | None
    project: LegacySql | None
    deps: tuple[dg.AssetKey, ...]

    def ask(self, facts: Facts, resources: Mapping[str, object]) -> Rerun:
        ansi_store, lake = resources["ansi_store"], resources["lake"]
        assert isinstance(ansi_store, AnsiStoreResource) and isinstance(lake, LakeResource)
        try:
            stored = stored_translations(
                self.legacy.source,
                ansi_store.path(),
                _catalog(self.legacy, self.project, ansi_store, lake),
                self.legacy.names,
                self.variables,
                self.project.budget if self.project is not None else None,
            )
        except Exception as exc:  # the step says what is wrong, naming the file
            return Rerun(f"its translation cannot be checked ({type(exc).__name__})")
        if stored is None:
            return Rerun("its file, the catalog or the translator changed since it was stored")
        keys = [dg.AssetKey([ANSI_ZONE, table.name]) for table in stored]
        latest = facts.latest([*keys, *self.deps])
        # As Dagster reads an input never observed nor materialized: INITIAL.
        current = {
            dep: latest[dep].asset_event.tags.get(DATA_VERSION_TAG)
            if dep in latest
            else INITIAL_DATA_VERSION.value
            for dep in self.deps
        }
        for key, table in zip(keys, stored, strict=True):
            own = latest.get(key)
            recorded = provenance(own) if own is not None else None
            if own is None or recorded is None:
                return Rerun(f"Dagster records no materialization of {key.to_user_string()}")
            if own.asset_event.tags.get(DATA_VERSION_TAG) != table.data_version:
                return Rerun(f"{key.to_user_string()} was last materialized from another SQL")
            if recorded.code_version != TRANSLATOR_VERSION:
                return Rerun(f"{key.to_user_string()} was materialized by another translator")
            inputs = {k: v.value for k, v in recorded.input_data_versions.items()}
            if any(
                current.get(dep) is None or inputs.get(dep) != current[dep] for dep in self.deps
            ):
                return Rerun(f"an input of {key.to_user_string()} has a new data version")
        return Rerun(None, {key: dict(latest[key].asset_event.metadata) for key in keys})


def build_ansi_assets(legacy: LegacySql) -> list[dg.AssetsDefinition]:
    """The assets of every legacy file (``<legacy root>/<dialect>/<name>.sql``), each
    translated with the variables its template was parsed with."""
    return [ansi_asset(file, legacy.variables, legacy) for file in legacy.files]
