#!/bin/sh
# Rebuilds the demo's artifacts byte for byte: sorted names, epoch mtimes,
# numeric root ownership and a gzip header without name or time.
#   hello-1.0.0.tar.gz                  the demo application (examples/deploys)
#   hello-1.1.0.tar.gz                  a broken hello: no index.html, so the demo's
#                                       health check fails (examples/deploys/hello-broken.yml)
#   hello-1.2.0.tar.gz                  the next hello, for the SSH fleet (examples/deploys/hello-ssh-next.yml)
#   shop-{db,api,worker,web}-*.tar.gz   the release examples/releases/shop.yml
set -eu
cd "$(dirname "$0")"

# build NAME VERSION TITLE: NAME-VERSION.tar.gz with VERSION and index.html.
build() {
  src=$(mktemp -d)
  cat > "$src/index.html" <<HTML
<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>$1 $2</title></head>
<body><h1>$3</h1><p>Version $2</p></body>
</html>
HTML
  printf '%s\n' "$2" > "$src/VERSION"
  chmod 0644 "$src/index.html" "$src/VERSION"
  tar -C "$src" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=ustar -cf - VERSION index.html \
    | gzip -n -9 > "$1-$2.tar.gz"
  rm -rf "$src"
  sha256sum "$1-$2.tar.gz"
}

# broken NAME VERSION: NAME-VERSION.tar.gz with VERSION only.
broken() {
  src=$(mktemp -d)
  printf '%s\n' "$2" > "$src/VERSION"
  chmod 0644 "$src/VERSION"
  tar -C "$src" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=ustar -cf - VERSION \
    | gzip -n -9 > "$1-$2.tar.gz"
  rm -rf "$src"
  sha256sum "$1-$2.tar.gz"
}

build hello 1.0.0 "Hello from manent"
broken hello 1.1.0
build hello 1.2.0 "Hello from manent, next version"
build shop-db 1.4.0 "Shop database schema"
build shop-api 2.3.0 "Shop API"
build shop-worker 2.3.0 "Shop worker"
build shop-web 3.1.0 "Shop web front"
