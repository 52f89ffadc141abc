"""JSON Schemas (draft 2020-12) of the documents the commands print with --json: algos, report, compare,
recommend, clients (render/jsondoc.py, cli/algos.py, cli/clients.py). Shipped as package data, so a script
can validate what it reads with the schema of the very version that wrote it:
importlib.resources.files("sshbench.schemas")."""
