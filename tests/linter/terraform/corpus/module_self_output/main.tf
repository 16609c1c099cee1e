# Shape: a local "worker" module whose IAM role name is derived from its own function name output, a pattern
# seen in community repos (Terraform orders each input and output on its own: not a cycle)
resource "aws_sqs_queue" "ingest" {
  name                       = "ingest"
  visibility_timeout_seconds = 120
}

module "worker" {
  source    = "./modules/worker"
  queue_arn = aws_sqs_queue.ingest.arn
  role_name = "${module.worker.function_name}-role"
}
