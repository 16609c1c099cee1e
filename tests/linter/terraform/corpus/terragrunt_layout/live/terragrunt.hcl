# the root configuration the units include (remote state, common inputs): no module of its own
remote_state {
  backend = "s3"
  config = {
    bucket = "acme-tf-state"
    key    = "${path_relative_to_include()}/terraform.tfstate"
  }
}
