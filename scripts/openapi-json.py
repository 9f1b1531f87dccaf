"""Prints OpenAPIDocument.swift: the service's OpenAPI document (YAML) as JSON in a Swift string."""
import json
import sys

import yaml

with open(sys.argv[1], encoding="utf-8") as source:
    document = json.dumps(yaml.safe_load(source), indent=1, sort_keys=True, ensure_ascii=False)
assert '"""' not in document and "\\(" not in document
print("// Made by scripts/generate-openapi.sh from openapi.yaml; do not edit.")
print()
print("/// The OpenAPI 3.1 document of `/v1`, served at `/v1/openapi.json`.")
print("enum OpenAPIDocument {")
print("    /// The document, JSON.")
print('    static let json = #"""')
print(document)
print('"""#')
print("}")
