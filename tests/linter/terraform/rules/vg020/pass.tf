# VG020 fixed
resource "aws_sqs_queue" "orders" {
  name                       = "orders"
  visibility_timeout_seconds = 180
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "orders_dlq" {
  name                      = "orders-dlq"
  message_retention_seconds = 1209600
}

resource "aws_lambda_function" "worker" {
  function_name = "orders-worker"
  role          = "arn:aws:iam::123456789012:role/orders-worker"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "build/worker.zip"
  timeout       = 30
}

resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn = aws_sqs_queue.orders.arn
  function_name    = aws_lambda_function.worker.arn
  function_response_types = ["ReportBatchItemFailures"]
}
