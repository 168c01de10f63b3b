"""A client generated from a relay's description by openapi-python-client, as a developer
would make one, asks every GET operation with the values given and reads each answer into the
models the description names. Prints, as its last line, JSON: the generator's warnings, the
operations read (with the model each answer became) and those that could not be."""

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys

url, config, out, values = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])

generated = subprocess.run(
    [sys.executable, "-m", "openapi_python_client", "generate",
     "--url", f"{url}/api/openapi.json", "--config", config,
     "--output-path", out, "--meta", "none"],
    capture_output=True, text=True)
said = generated.stdout + generated.stderr
if generated.returncode != 0:
    print(said)
    sys.exit(1)
warnings = [line for line in said.splitlines()
            if "warning" in line.lower() or "unable" in line.lower() or "cannot" in line.lower()]

sys.path.insert(0, str(__import__("pathlib").Path(out).parent))
package = __import__("pathlib").Path(out).name
client_module = importlib.import_module(f"{package}.client")
errors = importlib.import_module(f"{package}.errors")
api = importlib.import_module(f"{package}.api")
client = client_module.AuthenticatedClient(
    base_url=url, token=values["token"], raise_on_unexpected_status=True,
    headers={"X-Forwarded-For": values["forwarded_for"]})

read, unread = {}, {}
for group in pkgutil.iter_modules(api.__path__):
    tag = importlib.import_module(f"{api.__name__}.{group.name}")
    for op in pkgutil.iter_modules(tag.__path__):
        module = importlib.import_module(f"{tag.__name__}.{op.name}")
        parameters = inspect.signature(module.sync_detailed).parameters
        args = {}
        for name, parameter in parameters.items():
            if name == "client" or parameter.default is not inspect.Parameter.empty:
                continue
            key = f"{name}:{parameter.annotation.__name__}" if isinstance(parameter.annotation, type) else name
            args[name] = values.get(key, values.get(name))
        # Only what reads: the method as the generated request names it.
        if '"method": "get"' not in inspect.getsource(module._get_kwargs):
            continue
        try:
            answer = module.sync_detailed(client=client, **args)
            model = type(answer.parsed).__name__
            if isinstance(answer.parsed, list) and answer.parsed:
                model = f"list[{type(answer.parsed[0]).__name__}]"
            if answer.parsed is None and answer.content:
                unread[op.name] = f"{answer.status_code}: nothing read from {answer.content[:200]!r}"
            else:
                read[op.name] = f"{int(answer.status_code)} {model}"
        except errors.UnexpectedStatus as e:
            unread[op.name] = f"undescribed {e.status_code}: {e.content[:200]!r}"
        except Exception as e:  # a model that could not read the answer
            unread[op.name] = f"{type(e).__name__}: {e}"

print(json.dumps({"warnings": warnings, "read": read, "unread": unread}))
