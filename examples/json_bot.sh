#!/usr/bin/env bash
# A lovelet bot in plain bash over OpenSSH and the `lovelet-json` subsystem (docs/bot-api.md#json):
# it opens a table with one easy bot, plays the first legal choice of each decision, continues
# each round, leaves when the game is over and prints the last table line.
#
#   PROTOCOL_VERSION=20 examples/json_bot.sh -p 2222 -i ~/.ssh/id_ed25519 robo@localhost
#
# The arguments are ssh's. Each message is one JSON object a line; a choice map holds no map, so
# the first choice is the text from `"choices":[` to the first `}`.
set -euo pipefail

coproc SERVER { ssh -s "$@" lovelet-json; }
send() { printf '%s\n' "$1" >&"${SERVER[1]}"; }

send "{\"type\":\"hello\",\"version\":${PROTOCOL_VERSION:-20},\"name\":\"robo\"}"
send '{"type":"create_table","name":"json bot","edition":"2019","seats":2,"timer":null,'\
'"bots":[{"seat":1,"level":"easy"}],"takeover":false,"private":false,"hints":null,"bot_level":null,"bot_delay":0}'
send '{"type":"start"}'

answered="" continued=""
while IFS= read -r line <&"${SERVER[0]}"; do
  case "$line" in
    '{"type":"error"'*) echo "refused: $line" >&2 ;;
    '{"type":"table"'*) ;;
    *) continue ;;
  esac
  if [[ $line == *'"status":"finished"'* ]]; then
    echo "$line"
    send '{"type":"leave"}'
    exec {SERVER[1]}>&-  # EOF: the server answers what was sent, then closes
    cat <&"${SERVER[0]}" >/dev/null
    exit 0
  fi
  if [[ $line == *'"status":"round_over"'* ]]; then
    round=$(sed -E 's/.*"round":([0-9]+).*/\1/' <<<"$line")
    if [[ $round != "$continued" ]]; then
      continued=$round
      send '{"type":"continue_round"}'
    fi
    continue
  fi
  [[ $line == *'"choices":[{'* ]] || continue  # not our decision
  decision=$(sed -E 's/.*"pending":\{[^}]*"decision":([0-9]+)\}.*/\1/' <<<"$line")
  [[ $decision != "$answered" ]] || continue  # answered already: each decision once
  answered=$decision
  choice=$(sed -E 's/.*"choices":\[(\{[^}]*\}).*/\1/' <<<"$line")
  send "{\"type\":\"act\",\"choice\":$choice,\"decision\":$decision}"
done
echo "the server closed the session before the game was over" >&2
exit 1
