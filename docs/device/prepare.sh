#!/usr/bin/env bash
# Prepares the project checkout for a run on the GPU machine (NVIDIA H200, x86-64, no network):
#  - downloads the Vulkan loader and glvnd as .debs into .gl/ (the GPU machine has the driver but
#    neither the loader nor libGLdispatch, which the driver's Vulkan ICD libGLX_nvidia needs),
#  - builds the release binary and copies it to .devbin/,
#  - keeps both folders out of git.
# Usage, from the project root:  docs/device/prepare.sh
# Then call the device tool's `run` with carry [".gl", ".devbin"] and a command that begins with
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; export WGPU_BACKEND=vulkan;
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
for d in /.gl/ /.devbin/; do grep -qxF "$d" .git/info/exclude || echo "$d" >> .git/info/exclude; done
if ! ls .gl/libvulkan1_*.deb .gl/libglvnd0_*.deb >/dev/null 2>&1; then
  mkdir -p .gl /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update -qq
  (cd .gl && apt-get $o download libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libopengl0 libgles2)
fi
cargo build --release
mkdir -p .devbin
# stripped: the working tree that travels is capped at 64 MiB
for f in $(find target/release -maxdepth 1 -type f -perm -u+x); do strip -o ".devbin/$(basename "$f")" "$f"; done
ls -la .gl .devbin
echo "ready: carry [\".gl\", \".devbin\"]; scenes/ and other tracked files travel by themselves"
