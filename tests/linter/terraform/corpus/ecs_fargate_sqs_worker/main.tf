# A Fargate service that polls an SQS queue (the shape of public "ECS worker + SQS" examples: the queue URL in
# the container's environment, a task role allowed to receive and delete, a service scaled by a target).
variable "worker_image" {
  type    = string
  default = "public.ecr.aws/example/thumbnailer:2.3.1"
}

resource "aws_sqs_queue" "thumbnails" {
  name                       = "thumbnail-requests"
  visibility_timeout_seconds = 120
  message_retention_seconds  = 86400
}

data "aws_iam_policy_document" "worker_sqs" {
  statement {
    effect = "Allow"
    actions = [
      "sqs:ReceiveMessage",
      "sqs:DeleteMessage",
      "sqs:GetQueueAttributes",
    ]
    resources = [aws_sqs_queue.thumbnails.arn]
  }
}

resource "aws_iam_role" "worker_task" {
  name               = "thumbnailer-task"
  assume_role_policy = jsonencode({ Version = "2012-10-17", Statement = [] })
}

resource "aws_iam_role_policy" "worker_sqs" {
  name   = "sqs"
  role   = aws_iam_role.worker_task.id
  policy = data.aws_iam_policy_document.worker_sqs.json
}

resource "aws_ecs_cluster" "main" {
  name = "thumbnails"
}

resource "aws_ecs_task_definition" "worker" {
  family                   = "thumbnailer"
  requires_compatibilities = ["FARGATE"]
  network_mode             = "awsvpc"
  cpu                      = 512
  memory                   = 1024
  task_role_arn            = aws_iam_role.worker_task.arn

  container_definitions = jsonencode([
    {
      name      = "thumbnailer"
      image     = var.worker_image
      essential = true
      environment = [
        { name = "QUEUE_URL", value = aws_sqs_queue.thumbnails.url },
        { name = "MAX_MESSAGES", value = "1" },
      ]
      logConfiguration = {
        logDriver = "awslogs"
        options = {
          awslogs-group         = "/ecs/thumbnailer"
          awslogs-region        = "eu-west-1"
          awslogs-stream-prefix = "worker"
        }
      }
    }
  ])
}

resource "aws_ecs_service" "worker" {
  name            = "thumbnailer"
  cluster         = aws_ecs_cluster.main.id
  task_definition = aws_ecs_task_definition.worker.arn
  desired_count   = 1
  launch_type     = "FARGATE"
}

resource "aws_appautoscaling_target" "worker" {
  service_namespace  = "ecs"
  resource_id        = "service/${aws_ecs_cluster.main.name}/${aws_ecs_service.worker.name}"
  scalable_dimension = "ecs:service:DesiredCount"
  min_capacity       = 1
  max_capacity       = 10
}
