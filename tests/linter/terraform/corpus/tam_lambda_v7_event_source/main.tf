# Shape: terraform-aws-modules/terraform-aws-lambda examples/event-source-mapping at v7.x
resource "random_pet" "this" {
  length = 2
}

module "lambda_function" {
  source  = "terraform-aws-modules/lambda/aws"
  version = "~> 7.0"

  function_name = "${random_pet.this.id}-lambda-event-source-mapping"
  handler       = "index.lambda_handler"
  runtime       = "python3.12"
  timeout       = 60
  reserved_concurrent_executions = 1

  event_source_mapping = {
    sqs = {
      event_source_arn        = aws_sqs_queue.this.arn
      function_response_types = ["ReportBatchItemFailures"]
      scaling_config = {
        maximum_concurrency = 20
      }
    }
    dynamodb = {
      event_source_arn  = aws_dynamodb_table.this.stream_arn
      starting_position = "LATEST"
    }
  }
}

resource "aws_sqs_queue" "this" {
  name = random_pet.this.id
}

resource "aws_sqs_queue" "failure" {
  name = "${random_pet.this.id}-failure"
}

resource "aws_dynamodb_table" "this" {
  name         = random_pet.this.id
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "UserId"
}
