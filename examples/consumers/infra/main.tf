# A small estate whose queues are consumed by workers, not Lambda: an ECS service, an Elastic Beanstalk
# worker environment, an EventBridge pipe, a KEDA-scaled Deployment (../k8s) and application code (../app).
# `visguard lint examples/consumers` reads all of them and checks each queue against what really consumes it.

resource "aws_sqs_queue" "orders_dlq" {
  name                      = "orders-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "orders" {
  name                       = "orders"
  visibility_timeout_seconds = 600
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "reports" {
  name                       = "reports"
  visibility_timeout_seconds = 1800
}

resource "aws_sqs_queue" "thumbnails" {
  name                       = "thumbnails"
  visibility_timeout_seconds = 60
}

resource "aws_sqs_queue" "exports" {
  name                       = "exports"
  visibility_timeout_seconds = 900
}

# The orders service: its containers read ORDERS_QUEUE_URL (the code in ../app/worker.py).
resource "aws_ecs_task_definition" "orders_worker" {
  family                   = "orders-worker"
  requires_compatibilities = ["FARGATE"]
  network_mode             = "awsvpc"
  cpu                      = 512
  memory                   = 1024
  container_definitions = jsonencode([
    {
      name        = "worker"
      image       = "example/orders-worker:1.4.2"
      essential   = true
      stopTimeout = 30
      environment = [
        { name = "ORDERS_QUEUE_URL", value = aws_sqs_queue.orders.url },
      ]
    },
  ])
  tags = {
    "visguard.io/processing-p99" = "5m"
  }
}

resource "aws_ecs_service" "orders_worker" {
  name            = "orders-worker"
  task_definition = aws_ecs_task_definition.orders_worker.arn
  desired_count   = 4
  launch_type     = "FARGATE"
}

# A Beanstalk worker tier on the exports queue: sqsd's settings are the ones in effect.
resource "aws_elastic_beanstalk_environment" "exports" {
  name                = "exports-worker"
  application         = "exports"
  solution_stack_name = "64bit Amazon Linux 2023 v4.3.0 running Python 3.11"
  tier                = "Worker"

  setting {
    namespace = "aws:elasticbeanstalk:sqsd"
    name      = "WorkerQueueURL"
    value     = aws_sqs_queue.exports.url
  }
  setting {
    namespace = "aws:elasticbeanstalk:sqsd"
    name      = "VisibilityTimeout"
    value     = "300"
  }
  setting {
    namespace = "aws:elasticbeanstalk:sqsd"
    name      = "InactivityTimeout"
    value     = "600"
  }
}

# Thumbnails go through a pipe to a function that may run 2 minutes.
resource "aws_lambda_function" "thumbnail" {
  function_name = "thumbnail"
  role          = "arn:aws:iam::123456789012:role/thumbnail"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "thumbnail.zip"
  timeout       = 120
}

resource "aws_pipes_pipe" "thumbnails" {
  name     = "thumbnails"
  role_arn = "arn:aws:iam::123456789012:role/pipes"
  source   = aws_sqs_queue.thumbnails.arn
  target   = aws_lambda_function.thumbnail.arn

  source_parameters {
    sqs_queue_parameters {
      batch_size                         = 5
      maximum_batching_window_in_seconds = 10
    }
  }
}

resource "aws_sqs_queue" "notifications_dlq" {
  name                      = "notifications-dlq"
  message_retention_seconds = 1209600
}

# Consumed by ../app/notify.js (sqs-consumer).
resource "aws_sqs_queue" "notifications" {
  name                       = "notifications"
  visibility_timeout_seconds = 30
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.notifications_dlq.arn
    maxReceiveCount     = 5
  })
}

# The billing queue: consumed by ../app/billing (its poller overrides the visibility on every receive).
resource "aws_sqs_queue" "billing_dlq" {
  name                      = "billing-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "billing" {
  name                       = "billing"
  visibility_timeout_seconds = 600
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.billing_dlq.arn
    maxReceiveCount     = 5
  })
}
