"""The authenticating proxy in front of Dagster's webserver and MLflow (deploy/proxy): every file
parses, the manifests are valid Kubernetes objects, and the properties that keep the two UIs
closed hold: TLS only, authentication on every location, no exposed backend Service, MLflow's
basic-auth app, and no secret value in the repository."""

from __future__ import annotations

import configparser
import importlib.util
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml
from dockerfile_parse import DockerfileParser
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PROXY = DEPLOY / "proxy"
NGINX_CONF = PROXY / "nginx.conf"
MLFLOW_AUTH_INI = PROXY / "mlflow-auth.ini"
MLFLOW_DOCKERFILE = PROXY / "Dockerfile.mlflow"
KUSTOMIZATION = PROXY / "kustomization.yaml"
VALUES = DEPLOY / "helm" / "values.yaml"
README = DEPLOY / "README.md"
KUBERNETES_VERSION = "1.33"

# The Dagster chart's webserver (helm/dagster/templates/helpers/_deployment-webserver.tpl and
# _service-webserver.tpl in dagster-io/dagster): the release's selector labels plus
# `component`, a container port named "http", and the Service <release>-dagster-webserver.
RELEASE = "dagster"
WEBSERVER_POD_LABELS = {
    "app.kubernetes.io/name": "dagster",
    "app.kubernetes.io/instance": RELEASE,
    "component": "dagster-webserver",
}
WEBSERVER_PORT_NAME = "http"
WEBSERVER_ADDRESS = f"{RELEASE}-dagster-webserver.dagster.svc.cluster.local:80"

# Every Secret the deployment reads, with its keys; deploy/README.md creates exactly these.
SECRETS = {
    "plumbline-proxy-tls": {"tls.crt", "tls.key"},
    "plumbline-oauth2-proxy": {"client-id", "client-secret", "cookie-secret"},
    "plumbline-mlflow-server": {"admin-password", "flask-secret-key"},
    "plumbline-mlflow-client": {"MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD"},
}
# The one key the README may give as a literal: a user name is not a secret.
LITERAL_KEYS = {"MLFLOW_TRACKING_USERNAME"}
TLS_PROTOCOLS = {"TLSv1.2", "TLSv1.3"}
# The variables MLflow's client reads its credentials from: what plumbline-mlflow-client holds
# for the chart's envSecrets (which name a Secret, not its keys).
MLFLOW_CLIENT_ENV = {"MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD"}
# `if ($http_authorization !~ "^Basic ")` as the parser splits it.
BASIC_CREDENTIALS_MISSING = ("($http_authorization", "!~", "^Basic ", ")")
# Environment variables whose value is a credential.
SECRET_ENV_NAME = re.compile(r"PASSWORD|SECRET|TOKEN|CLIENT_ID|_KEY$")


# --- nginx.conf: a small parser of nginx's syntax (directives, blocks, quotes, comments) ---


class NginxSyntaxError(Exception):
    """nginx.conf does not parse; the message names the line."""


@dataclass(frozen=True)
class Directive:
    name: str
    args: tuple[str, ...]
    line: int
    block: tuple[Directive, ...] | None = None

    def all(self, name: str) -> list[Directive]:
        return [child for child in self.block or () if child.name == name]

    def first(self, name: str) -> Directive | None:
        found = self.all(name)
        return found[0] if found else None

    def walk(self) -> Iterator[Directive]:
        yield self
        for child in self.block or ():
            yield from child.walk()


def nginx_tokens(text: str) -> Iterator[tuple[str, int, bool]]:
    """(token, line, quoted): words, quoted strings and the punctuation `{`, `}`, `;`."""
    position, line = 0, 1
    while position < len(text):
        char = text[position]
        if char == "\n":
            line += 1
            position += 1
        elif char.isspace():
            position += 1
        elif char == "#":
            end = text.find("\n", position)
            position = len(text) if end < 0 else end
        elif char in "{};":
            yield char, line, False
            position += 1
        elif char in "\"'":
            start_line, end, chars = line, position + 1, []
            while end < len(text) and text[end] != char:
                if text[end] == "\\" and end + 1 < len(text):
                    end += 1
                if text[end] == "\n":
                    line += 1
                chars.append(text[end])
                end += 1
            if end >= len(text):
                raise NginxSyntaxError(f"line {start_line}: unterminated {char}-quoted string")
            yield "".join(chars), start_line, True
            position = end + 1
        else:
            end = position
            while end < len(text) and not text[end].isspace() and text[end] not in "{};\"'":
                end += 1
            yield text[position:end], line, False
            position = end


def parse_nginx(text: str) -> Directive:
    """The whole file as the block of a root directive named "main"."""
    tokens = list(nginx_tokens(text))
    position = 0

    def block(depth: int) -> tuple[Directive, ...]:
        nonlocal position
        found: list[Directive] = []
        words: list[tuple[str, int]] = []
        while position < len(tokens):
            token, line, quoted = tokens[position]
            position += 1
            if quoted or token not in "{};":
                words.append((token, line))
                continue
            if token == "}":
                if depth == 0:
                    raise NginxSyntaxError(f"line {line}: '}}' closes no block")
                if words:
                    raise NginxSyntaxError(f"line {words[0][1]}: {words[0][0]} lacks its ';'")
                return tuple(found)
            if not words:
                raise NginxSyntaxError(f"line {line}: {token!r} without a directive")
            (name, start), args = words[0], tuple(word for word, _ in words[1:])
            words = []
            children = block(depth + 1) if token == "{" else None
            found.append(Directive(name, args, start, children))
        if words:
            raise NginxSyntaxError(f"line {words[0][1]}: {words[0][0]} lacks its ';'")
        if depth:
            raise NginxSyntaxError("the file ends inside a block: a '}' is missing")
        return tuple(found)

    return Directive("main", (), 0, block(0))


def http_block(conf: Directive) -> Directive:
    (http,) = conf.all("http")
    return http


def upstream_servers(conf: Directive) -> dict[str, list[str]]:
    return {
        upstream.args[0]: [server.args[0] for server in upstream.all("server")]
        for upstream in http_block(conf).all("upstream")
    }


def proxied_upstream(location: Directive) -> str | None:
    """The upstream a location (or an `if` inside it) proxies to: http://<name>."""
    targets = {d.args[0] for d in location.walk() if d.name == "proxy_pass"}
    if not targets:
        return None
    (target,) = targets
    return target.removeprefix("http://")


def requires_basic_credentials(location: Directive) -> bool:
    """`if ($http_authorization !~ "^Basic ") { ... return 401; }`: no credentials, no request."""
    return any(
        guard.args == BASIC_CREDENTIALS_MISSING
        and [d.args for d in guard.all("return")] == [("401",)]
        for guard in location.all("if")
    )


def location_guard(location: Directive) -> str | None:
    """What stops a request without credentials here, or None if nothing does."""
    upstream = proxied_upstream(location)
    if location.first("internal") is not None:
        return "reachable only as a subrequest"
    auth_request = location.first("auth_request")
    if auth_request is not None and auth_request.args != ("off",):
        return "an oauth2-proxy session (auth_request)"
    if location.args == ("/oauth2/",) and upstream == "oauth2_proxy":
        return "oauth2-proxy's own sign-in flow"
    returns = location.all("return")
    if location.args[0].startswith("@") and upstream is None and len(returns) == 1:
        status, target = returns[0].args
        if status == "302" and target.startswith("/oauth2/sign_in"):
            return "a redirect to the sign-in"
    if upstream == "mlflow" and requires_basic_credentials(location):
        return "basic credentials, checked by MLflow's basic-auth app"
    return None


def unauthenticated_locations(conf: Directive) -> list[str]:
    problems = []
    for directive in conf.walk():
        if directive.name == "satisfy" and directive.args == ("any",):
            problems.append(f"line {directive.line}: satisfy any lets one check stand for all")
    for server in http_block(conf).all("server"):
        locations = server.all("location")
        rejects = server.first("ssl_reject_handshake")
        if not locations and (rejects is None or rejects.args != ("on",)):
            problems.append(f"line {server.line}: a server that serves files to anyone")
        for location in locations:
            if location_guard(location) is None:
                where = " ".join(location.args)
                problems.append(f"line {location.line}: location {where} needs no credentials")
    return problems


def tls_problems(conf: Directive) -> list[str]:
    http = http_block(conf)
    problems = []
    protocols = http.first("ssl_protocols")
    if protocols is None or not set(protocols.args) <= TLS_PROTOCOLS:
        problems.append(f"ssl_protocols must be a subset of {sorted(TLS_PROTOCOLS)}")
    for server in http.all("server"):
        listens = server.all("listen")
        if not listens:
            problems.append(f"line {server.line}: a server without listen (port 80, plain)")
        for listen in listens:
            if "ssl" not in listen.args:
                problems.append(f"line {listen.line}: listen {' '.join(listen.args)} without ssl")
    return problems


def server_names(conf: Directive) -> dict[str, Directive]:
    return {
        server.first("server_name").args[0]: server
        for server in http_block(conf).all("server")
        if server.first("server_name") is not None
    }


# --- secret literals in files ---

SECRET_LITERAL = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    # A credential in a URL: scheme://user:password@host.
    re.compile(r"://[^/\s:@]+:[^/\s@]+@"),
    # password = x, postgresqlPassword: x, client_secret: x, token=x. Not a value: empty, "",
    # a $VARIABLE or "..." (as in a comment's --set example). Token starts a word, so that
    # automountServiceAccountToken is none.
    re.compile(
        r"(password|passwd|secret[-_]?key|client[-_]secret|cookie[-_]secret|(?<![a-z])token)\b"
        r"[ \t]*[=:][ \t]*(?![\"']{2}|[\"']?\$|\.\.\.|$)\S",
        re.IGNORECASE | re.MULTILINE,
    ),
]


def secret_literals(text: str) -> list[str]:
    return [match.group(0) for pattern in SECRET_LITERAL for match in pattern.finditer(text)]


# --- fixtures: the files as parsed ---


@pytest.fixture(scope="module")
def nginx() -> Directive:
    return parse_nginx(NGINX_CONF.read_text())


@pytest.fixture(scope="module")
def kustomization() -> dict:
    return yaml.safe_load(KUSTOMIZATION.read_text())


@pytest.fixture(scope="module")
def manifests(kustomization) -> list[dict]:
    return [
        doc
        for name in kustomization["resources"]
        for doc in yaml.safe_load_all((PROXY / name).read_text())
        if doc
    ]


@pytest.fixture(scope="module")
def values() -> dict:
    return yaml.safe_load(VALUES.read_text())


def one(manifests: list[dict], kind: str, name: str) -> dict:
    (found,) = [m for m in manifests if m["kind"] == kind and m["metadata"]["name"] == name]
    return found


def container(deployment: dict, name: str) -> dict:
    (found,) = [
        c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == name
    ]
    return found


def flag(arguments: list[str], name: str) -> str:
    """The value of --name=value or of --name value."""
    for index, argument in enumerate(arguments):
        if argument.startswith(f"{name}="):
            return argument.split("=", 1)[1]
        if argument == name:
            return arguments[index + 1]
    raise AssertionError(f"{name} is not among {arguments}")


def mount_of(deployment: dict, container_name: str, volume_source: str, source_name: str) -> dict:
    """The volumeMount of the volume backed by <volume_source> <source_name>."""
    spec = deployment["spec"]["template"]["spec"]
    (volume,) = [
        v
        for v in spec["volumes"]
        if source_name
        in (
            v.get(volume_source, {}).get("name"),
            v.get(volume_source, {}).get("secretName"),
            v.get(volume_source, {}).get("claimName"),
        )
    ]
    (mount,) = [
        m
        for m in container(deployment, container_name)["volumeMounts"]
        if m["name"] == volume["name"]
    ]
    return mount


def user_deployment(values: dict) -> dict:
    (deployment,) = values["dagster-user-deployments"]["deployments"]
    return deployment


# --- the nginx parser itself ---


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a b;", [("a", ("b",), None)]),
        ("a 'b c' \"d;e\";", [("a", ("b c", "d;e"), None)]),
        ("# comment\nhttp { x 1; }", [("http", (), [("x", ("1",), None)])]),
        ("s { l = /a { internal; } }", [("s", (), [("l", ("=", "/a"), [("internal", (), None)])])]),
        ('h "";', [("h", ("",), None)]),
    ],
)
def test_the_nginx_parser_reads_directives_blocks_quotes_and_comments(text, expected):
    def shape(directive: Directive):
        children = None if directive.block is None else [shape(c) for c in directive.block]
        return (directive.name, directive.args, children)

    assert [shape(d) for d in parse_nginx(text).block] == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("http { a 1; ", "a '}' is missing"),
        ("a 1; }", "line 1: '}' closes no block"),
        ("a 1;\nb 2", "line 2: b lacks its ';'"),
        ("a 'b;", "line 1: unterminated '-quoted string"),
        ("http {\n a 1\n}", "line 2: a lacks its ';'"),
    ],
)
def test_the_nginx_parser_names_the_line_of_a_syntax_error(text, message):
    with pytest.raises(NginxSyntaxError, match=re.escape(message)):
        parse_nginx(text)


# --- nginx.conf: TLS and authentication on every location ---


def test_every_server_speaks_tls_1_2_or_1_3_only(nginx):
    assert tls_problems(nginx) == []


def test_every_location_requires_authentication(nginx):
    assert unauthenticated_locations(nginx) == []
    guards = {
        host: {" ".join(loc.args): location_guard(loc) for loc in server.all("location")}
        for host, server in server_names(nginx).items()
    }
    (dagster_host,) = [host for host in guards if host.startswith("dagster.")]
    (mlflow_host,) = [host for host in guards if host.startswith("mlflow.")]
    assert guards[dagster_host]["/"] == "an oauth2-proxy session (auth_request)"
    assert guards[mlflow_host] == {"/": "basic credentials, checked by MLflow's basic-auth app"}


def test_dagster_locations_ask_oauth2_proxys_check_location(nginx):
    dagster = next(s for h, s in server_names(nginx).items() if h.startswith("dagster."))
    by_path = {" ".join(location.args): location for location in dagster.all("location")}
    for location in dagster.all("location"):
        if proxied_upstream(location) == "dagster_webserver":
            (check,) = location.first("auth_request").args
            target = by_path[f"= {check}"]
            assert target.first("internal") is not None
            assert proxied_upstream(target) == "oauth2_proxy"


BREAKS_AUTHENTICATION = [
    ("auth_request removed", "auth_request /oauth2/auth;", ""),
    ("auth_request off", "auth_request /oauth2/auth;", "auth_request off;"),
    (
        "a new location without auth_request",
        "        location / {\n            auth_request",
        "        location /graphql {\n            proxy_pass http://dagster_webserver;\n"
        "        }\n\n        location / {\n            auth_request",
    ),
    ("the check location made public", "internal;", ""),
    ("MLflow guard answers 200", "return 401;", "return 200;"),
    ("MLflow guard removed", 'if ($http_authorization !~ "^Basic ")', 'if ($http_x_none = "x")'),
    ("satisfy any", "auth_request /oauth2/auth;", "auth_request /oauth2/auth; satisfy any;"),
]


@pytest.mark.parametrize(("change", "old", "new"), BREAKS_AUTHENTICATION, ids=lambda v: v)
def test_the_authentication_check_fails_when_a_location_opens(change, old, new):
    text = NGINX_CONF.read_text()
    assert old in text, change
    assert unauthenticated_locations(parse_nginx(text.replace(old, new, 1))), change


BREAKS_TLS = [
    ("a plain listener", "listen 8443 ssl;", "listen 8080;"),
    ("TLS 1.0 allowed", "ssl_protocols TLSv1.2 TLSv1.3;", "ssl_protocols TLSv1 TLSv1.2 TLSv1.3;"),
    ("no ssl_protocols", "ssl_protocols TLSv1.2 TLSv1.3;", ""),
]


@pytest.mark.parametrize(("change", "old", "new"), BREAKS_TLS, ids=lambda v: v)
def test_the_tls_check_fails_when_tls_weakens(change, old, new):
    text = NGINX_CONF.read_text()
    assert old in text, change
    assert tls_problems(parse_nginx(text.replace(old, new, 1))), change


def test_upstreams_are_the_services_of_the_deployment(nginx, manifests):
    upstreams = upstream_servers(nginx)
    assert upstreams["dagster_webserver"] == [WEBSERVER_ADDRESS]
    mlflow = one(manifests, "Service", "mlflow")
    (port,) = mlflow["spec"]["ports"]
    namespace = mlflow["metadata"]["namespace"]
    assert upstreams["mlflow"] == [f"mlflow.{namespace}.svc.cluster.local:{port['port']}"]
    proxy = one(manifests, "Deployment", "plumbline-proxy")
    oauth2 = container(proxy, "oauth2-proxy")
    assert upstreams["oauth2_proxy"] == [flag(oauth2["args"], "--http-address")]


def test_the_certificate_is_read_from_the_tls_secret_mount(nginx, manifests):
    http = http_block(nginx)
    proxy = one(manifests, "Deployment", "plumbline-proxy")
    mount = mount_of(proxy, "nginx", "secret", "plumbline-proxy-tls")
    assert mount["readOnly"] is True
    paths = [http.first(name).args[0] for name in ("ssl_certificate", "ssl_certificate_key")]
    assert [Path(p).parent for p in paths] == [Path(mount["mountPath"])] * 2
    assert {Path(p).name for p in paths} == SECRETS["plumbline-proxy-tls"]


def test_nginx_listens_where_the_service_sends_and_oauth2_proxy_calls_back(
    nginx, manifests, values
):
    proxy = one(manifests, "Deployment", "plumbline-proxy")
    (port,) = container(proxy, "nginx")["ports"]
    listens = {d.args[0] for d in nginx.walk() if d.name == "listen"}
    assert listens == {str(port["containerPort"])}
    (service_port,) = one(manifests, "Service", "plumbline-proxy")["spec"]["ports"]
    assert service_port["targetPort"] == port["name"]

    hosts = server_names(nginx)
    oauth2_args = container(proxy, "oauth2-proxy")["args"]
    callback = urlsplit(flag(oauth2_args, "--redirect-url"))
    assert callback.scheme == "https" and callback.path == "/oauth2/callback"
    assert callback.hostname in hosts
    assert flag(oauth2_args, "--whitelist-domain") == callback.hostname
    assert flag(oauth2_args, "--cookie-secure") == "true"

    mlflow_args = container(one(manifests, "Deployment", "mlflow"), "mlflow")["args"]
    mlflow_host = flag(mlflow_args, "--allowed-hosts")
    assert mlflow_host in hosts
    assert flag(mlflow_args, "--cors-allowed-origins") == f"https://{mlflow_host}"
    env = {item["name"]: item.get("value") for item in user_deployment(values)["env"]}
    tracking = urlsplit(env["PLUMBLINE_MLFLOW_URI"])
    assert (tracking.scheme, tracking.hostname) == ("https", mlflow_host)
    assert tracking.username is None and tracking.password is None


# --- the manifests ---


def test_the_kustomization_applies_every_manifest_and_generates_every_config(kustomization):
    manifests = {p.name for p in PROXY.glob("*.yaml")} - {KUSTOMIZATION.name}
    assert set(kustomization["resources"]) == manifests
    generated = {f for generator in kustomization["configMapGenerator"] for f in generator["files"]}
    assert generated == {NGINX_CONF.name, MLFLOW_AUTH_INI.name}


def test_the_manifests_are_valid_kubernetes_objects(manifests):
    assert {m["kind"] for m in manifests} == {
        "Deployment",
        "NetworkPolicy",
        "PersistentVolumeClaim",
        "Service",
    }
    for manifest in manifests:
        kubernetes_validate.validate(manifest, KUBERNETES_VERSION, strict=True)


def test_pods_mount_the_generated_config_maps(manifests, kustomization):
    generated = {generator["name"] for generator in kustomization["configMapGenerator"]}
    mounted = {
        volume["configMap"]["name"]
        for m in manifests
        if m["kind"] == "Deployment"
        for volume in m["spec"]["template"]["spec"]["volumes"]
        if "configMap" in volume
    }
    assert mounted == generated


def test_only_the_proxy_is_exposed_and_the_webserver_stays_inside(manifests, values):
    exposed = {
        m["metadata"]["name"]: m["spec"].get("type", "ClusterIP")
        for m in manifests
        if m["kind"] == "Service"
    }
    assert exposed == {"plumbline-proxy": "LoadBalancer", "mlflow": "ClusterIP"}
    webserver = values["dagsterWebserver"]["service"]
    assert webserver["type"] == "ClusterIP"
    assert webserver["port"] == int(WEBSERVER_ADDRESS.rsplit(":", 1)[1])
    assert values["ingress"]["enabled"] is False


@pytest.mark.parametrize(
    ("protected", "port"),
    [("webserver", WEBSERVER_PORT_NAME), ("mlflow", "http")],
)
def test_network_policies_admit_the_proxy_pods_only(manifests, protected, port):
    proxy_labels = one(manifests, "Deployment", "plumbline-proxy")["spec"]["template"]["metadata"][
        "labels"
    ]
    if protected == "webserver":
        pod_labels = WEBSERVER_POD_LABELS
    else:
        mlflow = one(manifests, "Deployment", "mlflow")
        pod_labels = mlflow["spec"]["template"]["metadata"]["labels"]
        assert {p["name"] for p in container(mlflow, "mlflow")["ports"]} == {port}
    (policy,) = [
        m
        for m in manifests
        if m["kind"] == "NetworkPolicy"
        and m["spec"]["podSelector"]["matchLabels"].items() <= pod_labels.items()
    ]
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    for rule in policy["spec"]["ingress"]:
        for peer in rule["from"]:
            # A namespaceSelector or ipBlock would admit more than the proxy.
            assert set(peer) == {"podSelector"}
            assert peer["podSelector"]["matchLabels"].items() <= proxy_labels.items()
        assert [p["port"] for p in rule["ports"]] == [port]


def test_mlflow_runs_the_basic_auth_app_configured_by_the_ini(manifests):
    mlflow = one(manifests, "Deployment", "mlflow")
    server = container(mlflow, "mlflow")
    arguments = server["args"]
    assert flag(arguments, "--app-name") == "basic-auth"
    env = {item["name"]: item for item in server["env"]}
    mount = mount_of(mlflow, "mlflow", "configMap", "plumbline-mlflow-auth")
    assert env["MLFLOW_AUTH_CONFIG_PATH"]["value"] == f"{mount['mountPath']}/{MLFLOW_AUTH_INI.name}"
    for name, key in [
        ("MLFLOW_AUTH_ADMIN_PASSWORD", "admin-password"),
        ("MLFLOW_FLASK_SERVER_SECRET_KEY", "flask-secret-key"),
    ]:
        assert env[name]["valueFrom"]["secretKeyRef"] == {
            "name": "plumbline-mlflow-server",
            "key": key,
        }
    store = mount_of(mlflow, "mlflow", "persistentVolumeClaim", "mlflow-store")["mountPath"]
    assert flag(arguments, "--backend-store-uri") == f"sqlite:///{store}/mlflow.db"


def test_the_mlflow_image_is_built_with_the_auth_extra_and_the_projects_mlflow(manifests):
    parser = DockerfileParser(fileobj=io.BytesIO(MLFLOW_DOCKERFILE.read_bytes()))
    (base,) = [i["value"] for i in parser.structure if i["instruction"] == "FROM"]
    assert ":" in base and not base.endswith(":latest")
    runs = " ".join(i["value"] for i in parser.structure if i["instruction"] == "RUN")
    (pin,) = re.findall(r'"(mlflow\[auth\]==[0-9.]+)"', runs)
    version = Version(pin.split("==")[1])
    pyproject = (ROOT / "pyproject.toml").read_text()
    (project,) = [Requirement(r) for r in re.findall(r'"(mlflow[<>=!~].*?)"', pyproject)]
    assert version in project.specifier, f"{pin} is outside the project's {project}"
    entrypoint = [i["value"] for i in parser.structure if i["instruction"] == "ENTRYPOINT"]
    assert entrypoint == ['["mlflow", "server"]']
    image = container(one(manifests, "Deployment", "mlflow"), "mlflow")["image"]
    assert image.rsplit(":", 1)[1] == str(version)


def load_mlflow_auth_config_reader():
    """MLflow's own reader of the auth ini (mlflow/server/auth/config.py). Loaded by path: the
    package mlflow.server.auth needs Flask-WTF at import, which only the server image installs;
    the reader itself needs only mlflow.environment_variables."""
    import mlflow

    path = Path(mlflow.__file__).parent / "server" / "auth" / "config.py"
    spec = importlib.util.spec_from_file_location("mlflow_auth_config", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_auth_ini_configures_mlflow_without_credentials(monkeypatch, manifests):
    parser = configparser.ConfigParser()
    assert parser.read(MLFLOW_AUTH_INI) == [str(MLFLOW_AUTH_INI)]
    assert "admin_password" not in parser["mlflow"]

    reader = load_mlflow_auth_config_reader()
    monkeypatch.setenv("MLFLOW_AUTH_CONFIG_PATH", str(MLFLOW_AUTH_INI))
    monkeypatch.delenv("MLFLOW_AUTH_ADMIN_PASSWORD", raising=False)
    monkeypatch.delenv("MLFLOW_AUTH_ADMIN_USERNAME", raising=False)
    config = reader.read_auth_config()
    unknown = set(parser["mlflow"]) - set(config._fields)
    assert not unknown, f"{MLFLOW_AUTH_INI.name}: MLflow reads no {sorted(unknown)}"
    assert config.admin_password is None  # from the Secret, as MLFLOW_AUTH_ADMIN_PASSWORD
    assert config.admin_username
    assert config.default_permission in {"READ", "NO_PERMISSIONS"}
    assert config.authorization_function == reader.DEFAULT_AUTHORIZATION_FUNCTION
    mlflow = one(manifests, "Deployment", "mlflow")
    store = mount_of(mlflow, "mlflow", "persistentVolumeClaim", "mlflow-store")["mountPath"]
    assert config.database_uri.startswith(f"sqlite:///{store}/")


# --- secrets: referenced, created by the README, never written down ---


def referenced_secrets(manifests: list[dict], values: dict) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for manifest in manifests:
        if manifest["kind"] != "Deployment":
            continue
        spec = manifest["spec"]["template"]["spec"]
        for box in spec["containers"]:
            for item in box.get("env", []):
                ref = item.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    found.setdefault(ref["name"], set()).add(ref["key"])
        for volume in spec["volumes"]:
            if "secret" in volume:
                # A TLS Secret's keys, as kubectl create secret tls writes them.
                found.setdefault(volume["secret"]["secretName"], set()).update(
                    {"tls.crt", "tls.key"}
                )
    for env_secret in user_deployment(values)["envSecrets"]:
        found.setdefault(env_secret["name"], set()).update(MLFLOW_CLIENT_ENV)
    return found


def readme_secret_commands() -> dict[str, dict[str, str]]:
    """`kubectl create secret` in deploy/README.md: name -> {key: how it is given}."""
    text = README.read_text().replace("\\\n", " ")
    created: dict[str, dict[str, str]] = {}
    for kind, name, rest in re.findall(
        r"kubectl (?:-n \S+ )?create secret (generic|tls) (\S+)(.*)", text
    ):
        if kind == "tls":
            created[name] = {"tls.crt": "--cert", "tls.key": "--key"}
            continue
        created[name] = {
            key: source for source, key in re.findall(r"(--from-\w+)=([^=\s]+)=", rest)
        }
    return created


def test_every_secret_read_is_one_the_readme_creates(manifests, values):
    assert referenced_secrets(manifests, values) == SECRETS
    created = readme_secret_commands()
    assert {name: set(keys) for name, keys in created.items()} == SECRETS
    for name, keys in created.items():
        literal = {key for key, source in keys.items() if source == "--from-literal"}
        assert literal <= LITERAL_KEYS, f"{name}: {literal} given on the command line"


def test_credentials_reach_containers_only_from_secrets(manifests, values):
    containers = [
        box
        for m in manifests
        if m["kind"] == "Deployment"
        for box in m["spec"]["template"]["spec"]["containers"]
    ]
    for box in containers:
        for item in box.get("env", []):
            if SECRET_ENV_NAME.search(item["name"]):
                assert "value" not in item, f"{box['name']}: {item['name']} has a value"
                assert "secretKeyRef" in item["valueFrom"], item["name"]
        for argument in box.get("args", []):
            assert not SECRET_ENV_NAME.search(argument.upper().replace("-", "_").split("=")[0])
    for item in user_deployment(values)["env"]:
        assert not SECRET_ENV_NAME.search(item["name"]), item["name"]


@pytest.mark.parametrize(
    "path",
    [*sorted(p for p in PROXY.iterdir() if p.is_file()), VALUES],
    ids=lambda p: p.relative_to(DEPLOY).as_posix(),
)
def test_no_file_holds_a_secret_value(path):
    assert secret_literals(path.read_text()) == []
    if path.suffix in {".yaml", ".yml"}:
        kinds = {doc.get("kind") for doc in yaml.safe_load_all(path.read_text()) if doc}
        assert "Secret" not in kinds, f"{path.name}: a Secret object in the repository"


@pytest.mark.parametrize(
    "text",
    [
        "admin_password = hunter2\n",
        "value: https://plumbline:hunter2@mlflow.example.com\n",
        "        - --client-secret=abc123\n",
        "-----BEGIN PRIVATE KEY-----\n",
        "OAUTH2_PROXY_COOKIE_SECRET: c2VjcmV0\n",
        'postgresqlPassword: "hunter2"\n',
        "token = ghp_abc\n",
    ],
)
def test_the_secret_scan_finds_a_written_down_secret(text):
    assert secret_literals(text)
