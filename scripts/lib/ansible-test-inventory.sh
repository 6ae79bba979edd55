# The inventory scripts/ansible-test deploys with. Sourced, never run: by scripts/ansible-test,
# and by mpirun-ext's DeploymentConfigFilesTest, which renders the ftd role's config files with it
# and reads each with the Java reader of its format.

# ansible_test_inventory DIR SSH_DIR OMPI_SOURCE OMPI_ARCHIVE_DIR DIST HOST=ADDRESS...
#   Writes the inventory into DIR: every HOST a compute node but the last, a spare, each at its
#   ADDRESS, reached over SSH as root with SSH_DIR's key and known hosts; Open MPI pushed from
#   OMPI_SOURCE (packed in OMPI_ARCHIVE_DIR), the distribution DIST.
ansible_test_inventory() {
  local inv=$1 ssh_dir=$2 ompi_source=$3 ompi_archive_dir=$4 dist=$5 host names=() last
  shift 5
  for host in "$@"; do names+=("${host%%=*}"); done
  last=$((${#names[@]} - 1))
  mkdir -p "$inv/group_vars" "$inv/host_vars"
  {
    echo "all:"
    echo "  children:"
    echo "    mpirun_ft:"
    echo "      children:"
    echo "        mpirun_ft_compute:"
    echo "          hosts:"
    for host in "${names[@]:0:$last}"; do echo "            $host:"; done
    echo "        mpirun_ft_spare:"
    echo "          hosts:"
    echo "            ${names[$last]}:"
  } > "$inv/hosts.yml"
  cat > "$inv/group_vars/all.yml" <<VARS
---
ansible_user: root
ansible_become: false
ansible_python_interpreter: /usr/bin/python3
ansible_ssh_private_key_file: $ssh_dir/id_ed25519
ansible_ssh_common_args: -o UserKnownHostsFile=$ssh_dir/known_hosts -o StrictHostKeyChecking=yes
# Open MPI pushed from the control node: the prefix scripts/setup built.
openmpi_install_method: push
openmpi_push_source: $ompi_source
openmpi_push_run_setup: false
openmpi_push_archive_dir: $ompi_archive_dir
checkpoint_storage_mode: existing
checkpoint_storage_path: /shared/mpirun-ft
ftd_dist_archive: $dist
ftd_service_manager: pidfile
ftd_fallback_start_at_boot: false
ftd_firewall: none
ftd_checkpoint_interval: 30s
ftd_profile: fast
ftd_verify_timeout: 90
VARS
  for host in "$@"; do
    printf -- '---\nansible_host: %s\nftd_bind_address: %s\n' "${host#*=}" "${host#*=}" > "$inv/host_vars/${host%%=*}.yml"
  done
}
