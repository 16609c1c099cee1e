# Shape: terraform-aws-modules/terraform-aws-sqs examples/complete at v3.x (policies as JSON strings,
# sqs_queue_* outputs) consumed by terraform-aws-modules/lambda 2.x (event_source_mapping map)
data "aws_caller_identity" "current" {}

module "orders_dlq" {
  source  = "terraform-aws-modules/sqs/aws"
  version = "~> 3.0"

  name = "orders-dlq"
}

module "orders" {
  source  = "terraform-aws-modules/sqs/aws"
  version = "~> 3.0"

  name                       = "orders"
  visibility_timeout_seconds = 60
  redrive_policy = jsonencode({
    deadLetterTargetArn = module.orders_dlq.sqs_queue_arn
    maxReceiveCount     = 10
  })
}

module "worker" {
  source  = "terraform-aws-modules/lambda/aws"
  version = "~> 2.0"

  function_name = "orders-worker-${data.aws_caller_identity.current.account_id}"
  handler       = "index.handler"
  runtime       = "python3.8"
  timeout       = 30

  event_source_mapping = {
    sqs = {
      event_source_arn = module.orders.sqs_queue_arn
      batch_size       = 5
    }
  }
}
