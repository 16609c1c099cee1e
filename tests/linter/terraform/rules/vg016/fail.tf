# VG016: the CloudFormation fixture tests/linter/fixtures/rules/vg016/fail.yaml, in Terraform
resource "aws_sqs_queue" "orders" {
  name                       = "orders"
  visibility_timeout_seconds = 0
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "orders_dlq" {
  name                      = "orders-dlq"
  message_retention_seconds = 1209600
}
