# shellcheck shell=bash
# Sourced by the scripts that start servers for tests (slurm-cluster.sh, postgres-server.sh):
# TCP ports picked at random among the free ones, so that servers started at once by different
# test processes do not collide.
#
# Never among the ports the kernel hands to outgoing connections (ip_local_port_range): a client
# that keeps connecting to a stopped server on loopback is, about once in 40,000 tries, given the
# server's port as its own and connected to itself, and the server cannot start again on it.

# Local TCP ports in any state, from /proc (works without iproute2).
used_ports() {
  local file _ local_address _rest
  for file in /proc/net/tcp /proc/net/tcp6; do
    [[ -r "$file" ]] || continue
    while read -r _ local_address _rest; do
      [[ "$local_address" == *:* ]] && echo $((16#${local_address##*:}))
    done <"$file"
  done
}

# Prints the first and last port to pick from: the widest stretch of 10000-65535 outside the
# kernel's range for outgoing connections (Linux's default leaves 10000-32767).
port_span() {
  local outgoing_first=32768 outgoing_last=60999
  if [[ -r /proc/sys/net/ipv4/ip_local_port_range ]]; then
    read -r outgoing_first outgoing_last </proc/sys/net/ipv4/ip_local_port_range
  fi
  local below=$((outgoing_first - 10000)) above=$((65535 - outgoing_last))
  if ((below >= above && below > 0)); then
    echo "10000 $((outgoing_first - 1))"
  elif ((above > 0)); then
    echo "$((outgoing_last + 1)) 65535"
  else
    echo "10000 65535" # the kernel takes them all: nothing to keep out of its way
  fi
}

# Prints N distinct random ports that nothing uses now, outside the range for outgoing connections.
free_ports() {
  local count=$1 used port first last picked=()
  used=" $(used_ports | tr '\n' ' ') "
  read -r first last <<<"$(port_span)"
  while ((${#picked[@]} < count)); do
    port=$((first + (RANDOM * 32768 + RANDOM) % (last - first + 1)))
    [[ "$used" == *" $port "* || " ${picked[*]} " == *" $port "* ]] && continue
    picked+=("$port")
  done
  echo "${picked[*]}"
}
