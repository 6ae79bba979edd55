# The config files of the simulated cluster's daemons, as 'scripts/cluster up --daemons' writes
# them. Sourced, never run: by scripts/cluster, and by mpirun-ext's DeploymentConfigFilesTest,
# which renders them into a directory of its own and reads each with the Java reader of its format.

# Where the cluster's state appears inside the image: the paths the config files name.
IN_IMAGE_STATE=/ftc
# The group's port on every node.
FTD_PORT=7800
# The job network's interface of transparent mode, on every node.
JOB_IFACE=job0

# cluster_write_configs DIR CLUSTER FLUSH_WRITERS WHEN_NO_SPARE HEALTH_DIR
#   From DIR/nodes.list (NAME ROLE ADDR a line; ROLE compute, spare or head), writes
#   DIR/scheduler.yaml and, per node, DIR/nodes/NAME/ftd.yaml and its site config
#   DIR/nodes/NAME/site/mpirun-ft.yaml. CLUSTER is the cluster's name, the rest are 'up''s
#   --flush-writers, --when-no-spare and --health-dir (empty: no health check). The environment's
#   MPIRUN_FT_CHECKPOINT_* and MPIRUN_FT_TCP_RTO_MAX are read as scripts/cluster says.
cluster_write_configs() {
  local dir=$1 cluster=$2 flush_writers=$3 when_no_spare=$4 health_dir=$5 name role addr slots members=""
  while read -r name role addr; do
    members+="${members:+, }$addr:$FTD_PORT"
  done < "$dir/nodes.list"
  # No spare list: the scheduler's spares are the daemons whose role is spare.
  cat > "$dir/scheduler.yaml" <<YAML
version: 1
checkpoint:
  interval: ${MPIRUN_FT_CHECKPOINT_INTERVAL:-30s}
  mtbf: ${MPIRUN_FT_CHECKPOINT_MTBF:-24h}
  cost: ${MPIRUN_FT_CHECKPOINT_COST:-1m}
storage:
  shared: /shared/mpirun-ft
  flush-writers: $flush_writers
policies:
  when-no-spare: $when_no_spare
YAML
  while read -r name role addr; do
    slots=1
    [ "$role" != head ] || { role=launcher; slots=0; }
    mkdir -p "$dir/nodes/$name/site"
    cat > "$dir/nodes/$name/ftd.yaml" <<YAML
version: 1
node:
  name: $name
  role: $role
  slots: $slots
group:
  cluster: mpirun-ft-$cluster
  bind: $addr
  port: $FTD_PORT
  members: [$members]
  secret-file: $IN_IMAGE_STATE/secret
  profile: fast
control:
  socket: $IN_IMAGE_STATE/nodes/$name/ftd.sock
runtime:
  prted: /usr/bin/prted
  rank-socket: $IN_IMAGE_STATE/nodes/$name/rank/ranks.sock
  state: $IN_IMAGE_STATE/nodes/$name/ftd-state
scheduler: $IN_IMAGE_STATE/scheduler.yaml
transparent:
  interface: $JOB_IFACE
  parent: eth0
  images: /local/ftd-images
  timeout: 60s
YAML
    if [ -n "${MPIRUN_FT_TCP_RTO_MAX:-}" ]; then
      echo "  tcp-rto-max: $MPIRUN_FT_TCP_RTO_MAX" >> "$dir/nodes/$name/ftd.yaml"
    fi
    if [ -n "$health_dir" ]; then
      cat >> "$dir/nodes/$name/ftd.yaml" <<YAML
health:
  command: test ! -e $health_dir/$name.degraded
  every: 1s
YAML
    fi
    # What a deployment tells mpirun-ft on the node (the Ansible role ftd writes the same file),
    # so that a job started there needs only the user's options.
    cat > "$dir/nodes/$name/site/mpirun-ft.yaml" <<YAML
socket: $IN_IMAGE_STATE/nodes/$name/ftd.sock
agent: $IN_IMAGE_STATE/ftd/bin/ftd agent
checkpoint-dir: /shared/mpirun-ft
local-checkpoint-dir: /local/mpirun-ft
YAML
  done < "$dir/nodes.list"
}
