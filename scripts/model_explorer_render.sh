#!/bin/sh
# Loads skope's Model Explorer export of the bundled example in the real Model Explorer and
# checks that it renders: `pip install ai-edge-model-explorer` (model-explorer on PATH, or
# MODEL_EXPLORER=path) and the system's Chromium (the Debian `chromium` package; CHROMIUM=path),
# driven headless over its DevTools protocol (scripts/chromium_shot.py) — no browser is
# downloaded. Checks the page shows the graph without "Unsupported JSON format" and writes
# screenshots/model_explorer.png.
# Skips (exit 0) when either is missing, so CI may run it anywhere.
set -eu
cd "$(dirname "$0")/.."
ME=${MODEL_EXPLORER:-$(command -v model-explorer || true)}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$ME" ] || [ -z "$CHROMIUM" ] || ! command -v python3 >/dev/null; then
    echo "skipped: needs model-explorer (pip install ai-edge-model-explorer), chromium and python3"
    exit 0
fi
OUT=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$OUT"' EXIT
cargo run -q --release -- export assets/examples/moe_decode.ge_proto.txt --format model-explorer \
    -o "$OUT" --profiles assets/examples/prof_result
PORT=${PORT:-8089}
"$ME" "$OUT/graph.json" --node_data_paths="$OUT/nodedata_verdict.json" --port "$PORT" \
    --no_open_in_browser >"$OUT/server.log" 2>&1 &
SERVER=$!
URL=""
for _ in $(seq 1 60); do
    URL=$(grep -o "http://localhost:$PORT/?data=[^ ]*" "$OUT/server.log" | head -n 1 || true)
    [ -n "$URL" ] && break
    sleep 1
done
[ -n "$URL" ] || { echo "model-explorer did not start:"; cat "$OUT/server.log"; exit 1; }
# Load the page, wait until Model Explorer has processed the graph, read its text and take a
# screenshot (over the DevTools protocol: Chromium's own --screenshot fires before the graph is
# drawn).
python3 scripts/chromium_shot.py "$CHROMIUM" "$URL" "$OUT/shot.png" "Processing graph" \
    >"$OUT/page.txt" || { echo "the page did not render:"; cat "$OUT/page.txt"; exit 1; }
if grep -q "Unsupported JSON format" "$OUT/page.txt"; then
    echo "Model Explorer says: Unsupported JSON format"
    exit 1
fi
grep -q "137 nodes" "$OUT/page.txt" || { echo "the graph did not load:"; cat "$OUT/page.txt"; exit 1; }
cp "$OUT/shot.png" screenshots/model_explorer.png
echo "rendered without an error (137 nodes); screenshot: screenshots/model_explorer.png"
