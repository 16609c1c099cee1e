# An Elastic Beanstalk worker environment on a queue of its own (the shape of public Beanstalk worker examples
# for long jobs: sqsd's VisibilityTimeout and InactivityTimeout raised to half an hour, the queue left at the
# SQS defaults, a dead-letter queue for the worker).
resource "aws_sqs_queue" "jobs_dlq" {
  name                      = "report-jobs-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "jobs" {
  name = "report-jobs"
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.jobs_dlq.arn
    maxReceiveCount     = 10
  })
}

resource "aws_elastic_beanstalk_application" "reports" {
  name = "reports"
}

resource "aws_elastic_beanstalk_environment" "worker" {
  name                = "reports-worker"
  application         = aws_elastic_beanstalk_application.reports.name
  solution_stack_name = "64bit Amazon Linux 2023 v6.1.0 running Node.js 20"
  tier                = "Worker"

  setting {
    namespace = "aws:elasticbeanstalk:sqsd"
    name      = "WorkerQueueURL"
    value     = aws_sqs_queue.jobs.id
  }
  setting {
    namespace = "aws:elasticbeanstalk:sqsd"
    name      = "HttpPath"
    value     = "/jobs"
  }
  setting {
    namespace = "aws:elasticbeanstalk:sqsd"
    name      = "VisibilityTimeout"
    value     = "1800"
  }
  setting {
    namespace = "aws:elasticbeanstalk:sqsd"
    name      = "InactivityTimeout"
    value     = "1799"
  }
  setting {
    namespace = "aws:autoscaling:asg"
    name      = "MaxSize"
    value     = "4"
  }
}
