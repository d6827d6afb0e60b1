#!/bin/sh
# The console's browser tests drive Debian's headless Chromium through its chromedriver:
# /usr/bin/chromium and /usr/bin/chromedriver. When either is missing, install both (as root,
# with apt-get), or stop with what to install.
set -eu
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
if [ -x "$CHROMIUM" ] && [ -x "$CHROMEDRIVER" ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM or $CHROMEDRIVER missing: apt-get install -y chromium chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q chromium chromium-driver
  if [ -x "$CHROMIUM" ] && [ -x "$CHROMEDRIVER" ]; then
    exit 0
  fi
fi
cat >&2 <<MSG
ensure-chromium: the console's browser tests need Chromium and its ChromeDriver at
  $CHROMIUM and $CHROMEDRIVER
(this machine has not got them, and this build cannot install them: it runs apt-get only as root).
Install them, e.g. on Debian or Ubuntu:  sudo apt-get update && sudo apt-get install -y chromium chromium-driver
on another system install Chromium (or Chrome) and the matching ChromeDriver and pass their paths:
  -Dconsole.chromium=/path/to/chrome -Dconsole.chromedriver=/path/to/chromedriver
or skip the server tests altogether with -DskipITs.
MSG
exit 1
