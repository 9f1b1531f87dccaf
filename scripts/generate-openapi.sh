#!/usr/bin/env bash
# Regenerates the postcard service's API code from Sources/CardService/API/openapi.yaml:
#   Sources/CardService/API/Generated/*.swift  (apple/swift-openapi-generator 1.14.3: types, server)
#   Sources/CardService/API/Generated/OpenAPIDocument.swift  (the document as JSON, served at /v1/openapi.json)
# The output is committed: building the generator's plugin in every CI run would cost minutes
# (OpenAPIKit, Yams), and the code changes only when the YAML does. Run this after editing it;
# OpenAPIDocumentTests fails while the committed JSON and the YAML disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
service=Sources/CardService/API
generator_dir=${OPENAPI_GENERATOR_DIR:-/tmp/swift-openapi-generator-1.14.3}
if [[ ! -x $generator_dir/.build/debug/swift-openapi-generator ]]; then
    rm -rf "$generator_dir"
    git clone -q https://github.com/apple/swift-openapi-generator "$generator_dir"
    git -C "$generator_dir" checkout -q 1.14.3
    (cd "$generator_dir" && swift build --product swift-openapi-generator)
fi
config=$(mktemp --suffix=.yaml)
trap 'rm -f "$config"' EXIT
# The shapes with fields that are null rather than absent (a card's error, a list's next
# cursor, a run's manifest) are our own types (APIShapes.swift): generated types leave a nil
# field out. A deposit manifest is Mail's own type.
cat > "$config" <<'YAML'
generate:
  - types
  - server
accessModifier: internal
namingStrategy: idiomatic
typeOverrides:
  schemas:
    Card: CardShape
    CardSpec: CardSpecBody
    CardFiles: CardFilesShape
    CardList: CardListShape
    CreatedCard: CreatedCardShape
    PrintRun: PrintRunShape
    Event: EventShape
    EventList: EventListShape
    WebhookEndpoint: WebhookEndpointShape
    WebhookEndpointWithSecret: WebhookEndpointShape
    DepositManifest: DepositManifestShape
YAML
rm -rf "$service/Generated"
mkdir -p "$service/Generated"
"$generator_dir/.build/debug/swift-openapi-generator" generate "$service/openapi.yaml" --config "$config" \
    --output-directory "$service/Generated"
# Generated code is not ours to format: swift-format skips these files.
for file in "$service"/Generated/*.swift; do
    { echo "// swift-format-ignore-file"; cat "$file"; } > "$file.tmp" && mv "$file.tmp" "$file"
done
python3 scripts/openapi-json.py "$service/openapi.yaml" > "$service/Generated/OpenAPIDocument.swift"
# Ours, so formatted as the rest (the literal's indentation is the Swift string's, not the JSON's).
swift format format --in-place "$service/Generated/OpenAPIDocument.swift"
echo "generate-openapi: $service/Generated written"
