# Shape: a service root that consumes a queue another root creates (data "aws_sqs_queue"), common in
# community repos that split "platform" and "service" stacks; one queue is declared here too
resource "aws_sqs_queue" "events" {
  name                       = "events"
  visibility_timeout_seconds = 900
  redrive_policy = jsonencode({
    deadLetterTargetArn = data.aws_sqs_queue.platform_dlq.arn
    maxReceiveCount     = 5
  })
}

data "aws_sqs_queue" "events" {
  name = "events"
}

data "aws_sqs_queue" "platform_dlq" {
  name = "platform-dlq"
}

data "aws_sqs_queue" "orders" {
  name = "orders"
}

data "aws_lambda_function" "shared" {
  function_name = "shared-worker"
}

resource "aws_lambda_function" "events" {
  function_name = "events"
  role          = "arn:aws:iam::123456789012:role/events"
  handler       = "main"
  runtime       = "provided.al2"
  timeout       = 300
}

resource "aws_lambda_event_source_mapping" "events" {
  event_source_arn = data.aws_sqs_queue.events.arn
  function_name    = aws_lambda_function.events.arn
  batch_size       = 1
}

resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn = data.aws_sqs_queue.orders.arn
  function_name    = data.aws_lambda_function.shared.arn
}
