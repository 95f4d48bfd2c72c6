# Sourced by the scripts that start servers for tests (slurm-cluster.sh, postgres-server.sh):
# TCP ports picked at random among the free ones, so that servers started at once by different
# test processes do not collide.

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

# Prints N distinct random ports in [20000, 59999] that nothing uses now.
free_ports() {
  local count=$1 used port picked=()
  used=" $(used_ports | tr '\n' ' ') "
  while ((${#picked[@]} < count)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    [[ "$used" == *" $port "* || " ${picked[*]} " == *" $port "* ]] && continue
    picked+=("$port")
  done
  echo "${picked[*]}"
}
