#!/bin/sh
# Loads skope's Model Explorer export of the bundled example in the real Model Explorer and
# checks that it renders: `pip install ai-edge-model-explorer` (model-explorer on PATH, or
# MODEL_EXPLORER=path) and the system's Chromium (the Debian `chromium` package; CHROMIUM=path),
# driven headless — no browser is downloaded. Writes screenshots/model_explorer.png.
# Skips (exit 0) when either is missing, so CI may run it anywhere.
set -eu
cd "$(dirname "$0")/.."
ME=${MODEL_EXPLORER:-$(command -v model-explorer || true)}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$ME" ] || [ -z "$CHROMIUM" ]; then
    echo "skipped: needs model-explorer (pip install ai-edge-model-explorer) and chromium"
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
N=0
chrome() {
    N=$((N + 1))
    timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$OUT/chrome$N" --window-size=1600,1000 "$@" "$URL" 2>/dev/null
}
chrome --timeout=15000 --dump-dom >"$OUT/page.html" || true
[ -s "$OUT/page.html" ] || { echo "no page from Model Explorer"; exit 1; }
if grep -q "Unsupported JSON format" "$OUT/page.html"; then
    echo "Model Explorer says: Unsupported JSON format"
    exit 1
fi
chrome --virtual-time-budget=20000 --screenshot="$OUT/shot.png" || true
if [ -s "$OUT/shot.png" ]; then
    cp "$OUT/shot.png" screenshots/model_explorer.png
    echo "rendered without an error; screenshot: screenshots/model_explorer.png"
else
    echo "rendered without an error; the screenshot did not finish (headless Chromium's virtual time)"
fi
