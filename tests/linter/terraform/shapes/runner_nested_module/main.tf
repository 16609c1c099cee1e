variable "environment" {
  type    = string
  default = "ci"
}

variable "lambda_scale_up_timeout" {
  description = "Time out for the scale up lambda in seconds."
  type        = number
  default     = 300
}

variable "job_queue_visibility_timeout" {
  description = "Visibility timeout of the queued-builds queue."
  type        = number
  default     = 60
}

locals {
  tags = { Environment = var.environment }
}

resource "aws_sqs_queue" "queued_builds" {
  name                        = "${var.environment}-queued-builds.fifo"
  fifo_queue                  = true
  content_based_deduplication = true
  visibility_timeout_seconds  = var.job_queue_visibility_timeout
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.queued_builds_dlq.arn
    maxReceiveCount     = 5
  })
  tags = local.tags
}

resource "aws_sqs_queue" "queued_builds_dlq" {
  name                      = "${var.environment}-queued-builds-dlq.fifo"
  fifo_queue                = true
  message_retention_seconds = 1209600
  tags                      = local.tags
}

module "runners" {
  source          = "./modules/runners"
  prefix          = var.environment
  sqs_build_queue = aws_sqs_queue.queued_builds
  lambda_timeout  = var.lambda_scale_up_timeout
}
