# VG041: the CloudFormation fixture tests/linter/fixtures/rules/vg041/fail.yaml, in Terraform
resource "aws_sqs_queue" "orders" {
  name                       = "orders.fifo"
  visibility_timeout_seconds = 3600
  fifo_queue                 = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "orders_dlq" {
  name                      = "orders-dlq.fifo"
  fifo_queue                = true
  message_retention_seconds = 1209600
}
