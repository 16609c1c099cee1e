# Shape: aws-samples/serverless-patterns sqs-lambda-terraform (plain resources; names carry the account id)
data "aws_caller_identity" "current" {}

resource "aws_sqs_queue" "my_sqs" {
  name                       = "sqs-lambda-demo-${data.aws_caller_identity.current.account_id}"
  message_retention_seconds  = 86400
  visibility_timeout_seconds = 30
}

resource "aws_lambda_function" "lambda_function" {
  function_name = "lambda-sqs-${data.aws_caller_identity.current.account_id}"
  filename      = "lambda.zip"
  handler       = "app.lambda_handler"
  runtime       = "python3.9"
  role          = "arn:aws:iam::123456789012:role/demo"
  timeout       = 15
}

resource "aws_lambda_event_source_mapping" "sqs_lambda_trigger" {
  event_source_arn = aws_sqs_queue.my_sqs.arn
  function_name    = aws_lambda_function.lambda_function.function_name
}
