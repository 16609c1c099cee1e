# Shape: terraform-aws-modules/terraform-aws-sqs examples/complete at v4.x (create_dlq, fifo_queue) with a
# hand-written function and mapping, as in the AWS serverless patterns
module "payments" {
  source  = "terraform-aws-modules/sqs/aws"
  version = "~> 4.0"

  name                       = "payments"
  fifo_queue                 = true
  visibility_timeout_seconds = 120
  create_dlq                 = true
  dlq_message_retention_seconds = 1209600
  redrive_policy = {
    maxReceiveCount = 3
  }
}

resource "aws_lambda_function" "payments" {
  function_name = "payments"
  role          = "arn:aws:iam::123456789012:role/payments"
  handler       = "app.handler"
  runtime       = "nodejs18.x"
  timeout       = 20
}

resource "aws_lambda_event_source_mapping" "payments" {
  event_source_arn        = module.payments.queue_arn
  function_name           = aws_lambda_function.payments.arn
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]
}
