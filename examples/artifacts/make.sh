#!/bin/sh
# Rebuilds hello-1.0.0.tar.gz byte for byte: sorted names, epoch mtimes,
# numeric root ownership and a gzip header without name or time.
set -eu
cd "$(dirname "$0")"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cat > "$src/index.html" <<'HTML'
<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>hello 1.0.0</title></head>
<body><h1>Hello from manent</h1><p>Version 1.0.0</p></body>
</html>
HTML
printf '1.0.0\n' > "$src/VERSION"
chmod 0644 "$src/index.html" "$src/VERSION"
tar -C "$src" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=ustar -cf - VERSION index.html \
  | gzip -n -9 > hello-1.0.0.tar.gz
sha256sum hello-1.0.0.tar.gz
